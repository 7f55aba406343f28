import { Body, Controller, Get, HttpCode, Param, Post, Req, Res } from '@nestjs/common';
import { Public } from '@svc/auth';
import { RpcClient } from '@svc/bus';
import { PlatformConfig } from '@svc/config';
import { sha256Hex } from '@svc/crypto';
import { ApiDoc, ApiResponseOf } from '@svc/server';
import { IsIn } from 'class-validator';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { assertSameOrigin } from './same-origin';
import { describeBounds, proposalPageWords, type ProposedBounds } from '../hosted/authority-bounds-wording';
import { ApplicationsRepository } from '../applications/applications.repository';
import { brandPalette } from '../hosted/brand-colours';
import { escapeHtml } from '../hosted/html';
import { negotiateLocale, textDirection } from '../hosted/i18n';
import { contentSecurityPolicy, imageOrigin, newNonce, sendHtml } from '../hosted/page-security';
import { PAGE_STYLES, brandStyles } from '../hosted/page-styles';
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
    private readonly applications: ApplicationsRepository,
    platform: PlatformConfig,
  ) {
    this.origin = new URL(platform.PUBLIC_BASE_URL).origin;
  }

  @Get(':proposal_token')
  @Public()
  @ApiDoc({
    tag: 'People',
    summary: 'Hosted page of a proposed authority (HTML): the signed-in person grants or declines it',
    response: 'The proposal page',
    produces: 'text/html',
    errors: [404],
  })
  async page(@Param('proposal_token') token: string, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<FastifyReply> {
    const person = await this.sessions.fromRequest(request.raw);
    if (!person)
      return reply
        .code(303)
        .header('location', this.sessions.signInPath(`/authorities/${TOKEN.test(token) ? token : ''}`))
        .header('cache-control', 'no-store')
        .send();
    const locale = negotiateLocale(request.headers['accept-language']);
    const nonce = newNonce();
    const proposal = TOKEN.test(token)
      ? await this.rpc.call('oap.get_authority_proposal', { proposalTokenSha256: sha256Hex(token) })
      : undefined;
    if (!proposal?.found) return sendHtml(reply, 404, page(locale, nonce, '<h1>Not found</h1>'), contentSecurityPolicy(nonce, []), locale);
    const phrases = describeBounds(JSON.parse(proposal.boundsJson) as ProposedBounds, proposal.validUntil, locale);
    const words = proposalPageWords(proposal.agentName || proposal.agentId, locale);
    const application = await this.applications.findApplication(proposal.applicationId);
    const branding: ProposalBranding = {
      name: application?.name ?? null,
      logoUrl: application?.logoUrl ?? null,
      brandColor: application?.brandColor ?? null,
    };
    const actions =
      proposal.status === 'proposed'
        ? `<div id="svc-actions" role="group" aria-labelledby="svc-title"><button type="button" class="primary" data-answer="grant">${escapeHtml(words.grant)}</button><button type="button" class="secondary" data-answer="decline">${escapeHtml(words.decline)}</button></div>
<script nonce="${nonce}">for (const b of document.querySelectorAll('button[data-answer]')) b.addEventListener('click', async () => {
  for (const other of document.querySelectorAll('button[data-answer]')) other.disabled = true;
  await fetch(location.pathname, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ answer: b.dataset.answer }) });
  location.reload();
});</script>`
        : `<p id="svc-status" role="status" data-status="${escapeHtml(proposal.status)}">${escapeHtml(proposal.status)}</p>`;
    const body = `<h1 id="svc-title">${escapeHtml(words.title)}</h1>
<ul class="purposes">${phrases.map((phrase) => `<li>${escapeHtml(phrase)}</li>`).join('')}</ul>
${actions}`;
    const logo = imageOrigin(branding.logoUrl);
    return sendHtml(
      reply,
      200,
      page(locale, nonce, body, words.title, branding),
      contentSecurityPolicy(nonce, [], { imageOrigins: logo ? [logo] : [] }),
      locale,
    );
  }

  @Post(':proposal_token')
  @Public()
  @HttpCode(200)
  @ApiResponseOf(AuthorityProposalAnswerResponse)
  @ApiDoc({
    tag: 'People',
    summary: 'The signed-in person grants (becoming the principal) or declines a proposed authority',
    errors: [400, 401, 403, 404, 409],
  })
  async answer(
    @Param('proposal_token') token: string,
    @Req() request: FastifyRequest,
    @Body() body: AuthorityProposalAnswerBody,
  ): Promise<AuthorityProposalAnswerResponse> {
    assertSameOrigin(request, this.origin);
    const person = await this.sessions.fromRequest(request.raw);
    if (!person)
      throw peopleError('sign_in_required', 'Sign in first', {
        sign_in_url: this.sessions.signInPath(`/authorities/${TOKEN.test(token) ? token : ''}`),
      });
    if (!TOKEN.test(token)) throw peopleError('authority_proposal_not_found', 'Authority proposal not found');
    const settled = await this.rpc.call('oap.settle_authority_proposal', {
      proposalTokenSha256: sha256Hex(token),
      outcome: body.answer,
      personId: person.personId,
    });
    if (!settled.found) throw peopleError('authority_proposal_not_found', 'Authority proposal not found');
    const wanted = body.answer === 'grant' ? 'active' : 'declined';
    if (settled.status !== wanted)
      throw peopleError('authority_proposal_settled', `The proposal is already ${settled.status}`, { status: settled.status });
    return { status: settled.status };
  }
}

/** The application's branding on the page: its name, logo (https) and colour, as on the decision pages. */
interface ProposalBranding {
  name: string | null;
  logoUrl: string | null;
  brandColor: string | null;
}

/** The page in the decision pages' design: their stylesheet, the application's colours, its logo and name. */
function page(locale: string, nonce: string, body: string, title = 'Authority', branding?: ProposalBranding): string {
  const name = branding?.name ? `<span>${escapeHtml(branding.name)}</span>` : '';
  const logo = branding?.logoUrl ? `<img src="${escapeHtml(branding.logoUrl)}" alt="" height="40" referrerpolicy="no-referrer">` : '';
  const brand = name || logo ? `<p class="brand">${logo}${name}</p>` : '';
  return `<!doctype html><html lang="${escapeHtml(locale)}" dir="${textDirection(locale)}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="referrer" content="no-referrer"><title>${escapeHtml(title)}</title><style nonce="${nonce}">${PAGE_STYLES}${brandStyles(brandPalette(branding?.brandColor ?? null))}</style></head><body class="full"><main id="svc-main">${brand}${body}</main></body></html>`;
}
