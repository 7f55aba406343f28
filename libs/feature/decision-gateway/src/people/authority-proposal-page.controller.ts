import { Body, Controller, Get, HttpCode, Param, Post, Req, Res } from '@nestjs/common';
import { Public } from '@svc/auth';
import { RpcClient } from '@svc/bus';
import { PlatformConfig } from '@svc/config';
import { sha256Hex } from '@svc/crypto';
import { ApiDoc, ApiResponseOf } from '@svc/server';
import { IsIn } from 'class-validator';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { describeBounds, proposalPageWords, type ProposedBounds } from '../hosted/authority-bounds-wording';
import { escapeHtml } from '../hosted/html';
import { negotiateLocale } from '../hosted/i18n';
import { contentSecurityPolicy, newNonce, sendHtml } from '../hosted/page-security';
import { peopleError } from './people.errors';
import { PersonSessionsService } from './person-sessions.service';

/** The signed-in person's answer to an authority proposal. */
export class AuthorityProposalAnswerBody {
  @IsIn(['grant', 'decline']) answer!: 'grant' | 'decline';
}

/** The authority after the answer. */
export class AuthorityProposalAnswerResponse {
  @IsIn(['proposed', 'declined', 'active', 'suspended', 'revoked']) status!: string;
}

const TOKEN = /^[A-Za-z0-9_-]{43}$/;

/**
 * The hosted page of an authority the application proposed (`/authorities/:proposal_token`): the
 * signed-in person reads the bounds in plain words and grants or declines. The principal of a
 * granted authority is the person of the verified sign-in cookie, never a value from the browser
 * or the application. Without a sign-in the page sends the browser to the sign-in page and back.
 */
@Controller('authorities')
export class AuthorityProposalPageController {
  private readonly origin: string;

  constructor(
    private readonly sessions: PersonSessionsService,
    private readonly rpc: RpcClient,
    platform: PlatformConfig,
  ) {
    this.origin = new URL(platform.PUBLIC_BASE_URL).origin;
  }

  @Get(':proposal_token')
  @Public()
  @ApiDoc({ tag: 'People', summary: 'Hosted page of a proposed authority (HTML): the signed-in person grants or declines it', response: 'The proposal page', produces: 'text/html', errors: [404] })
  async page(@Param('proposal_token') token: string, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<FastifyReply> {
    const person = await this.sessions.fromRequest(request.raw);
    if (!person) return reply.code(303).header('location', this.sessions.signInPath(`/authorities/${TOKEN.test(token) ? token : ''}`)).header('cache-control', 'no-store').send();
    const locale = negotiateLocale(request.headers['accept-language']);
    const nonce = newNonce();
    const proposal = TOKEN.test(token) ? await this.rpc.call('oap.get_authority_proposal', { proposalTokenSha256: sha256Hex(token) }) : undefined;
    if (!proposal?.found) return sendHtml(reply, 404, page(locale, nonce, '<h1>Not found</h1>'), contentSecurityPolicy(nonce, []), locale);
    const phrases = describeBounds(JSON.parse(proposal.boundsJson) as ProposedBounds, proposal.validUntil, locale);
    const words = proposalPageWords(proposal.agentName || proposal.agentId, locale);
    const actions =
      proposal.status === 'proposed'
        ? `<p><button type="button" data-answer="grant">${escapeHtml(words.grant)}</button> <button type="button" data-answer="decline">${escapeHtml(words.decline)}</button></p>
<script nonce="${nonce}">for (const b of document.querySelectorAll('button[data-answer]')) b.addEventListener('click', async () => {
  await fetch(location.pathname, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ answer: b.dataset.answer }) });
  location.reload();
});</script>`
        : `<p data-status="${escapeHtml(proposal.status)}">${escapeHtml(proposal.status)}</p>`;
    const body = `<h1>${escapeHtml(words.title)}</h1>
<ul>${phrases.map((phrase) => `<li>${escapeHtml(phrase)}</li>`).join('')}</ul>
${actions}`;
    return sendHtml(reply, 200, page(locale, nonce, body), contentSecurityPolicy(nonce, []), locale);
  }

  @Post(':proposal_token')
  @Public()
  @HttpCode(200)
  @ApiResponseOf(AuthorityProposalAnswerResponse)
  @ApiDoc({ tag: 'People', summary: 'The signed-in person grants (becoming the principal) or declines a proposed authority', errors: [400, 401, 403, 404, 409] })
  async answer(@Param('proposal_token') token: string, @Req() request: FastifyRequest, @Body() body: AuthorityProposalAnswerBody): Promise<AuthorityProposalAnswerResponse> {
    this.assertSameOrigin(request);
    const person = await this.sessions.fromRequest(request.raw);
    if (!person) throw peopleError('sign_in_required', 'Sign in first', { sign_in_url: this.sessions.signInPath(`/authorities/${TOKEN.test(token) ? token : ''}`) });
    if (!TOKEN.test(token)) throw peopleError('authority_proposal_not_found', 'Authority proposal not found');
    const settled = await this.rpc.call('oap.settle_authority_proposal', { proposalTokenSha256: sha256Hex(token), outcome: body.answer, personId: person.personId });
    if (!settled.found) throw peopleError('authority_proposal_not_found', 'Authority proposal not found');
    const wanted = body.answer === 'grant' ? 'active' : 'declined';
    if (settled.status !== wanted) throw peopleError('authority_proposal_settled', `The proposal is already ${settled.status}`, { status: settled.status });
    return { status: settled.status };
  }

  /** A browser call from another site is refused (Origin, else Sec-Fetch-Site). */
  private assertSameOrigin(request: FastifyRequest): void {
    const origin = request.headers.origin;
    const ownOrigins = [this.origin, `${request.protocol}://${request.headers.host ?? ''}`];
    if (typeof origin === 'string' && origin !== 'null' && !ownOrigins.includes(origin)) throw peopleError('origin_not_allowed', 'Cross-origin requests are not accepted here');
    if (origin === 'null' || request.headers['sec-fetch-site'] === 'cross-site') throw peopleError('origin_not_allowed', 'Cross-origin requests are not accepted here');
  }
}

function page(locale: string, nonce: string, body: string): string {
  return `<!doctype html><html lang="${escapeHtml(locale)}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Authority</title></head><body data-nonce="${nonce}"><main>${body}</main></body></html>`;
}
