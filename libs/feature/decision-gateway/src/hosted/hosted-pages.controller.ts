import { SigningOutcomes } from '../decisions/signing-outcomes';
import { Body, Controller, Get, Headers, HttpCode, Param, Post, Query, Res } from '@nestjs/common';
import { Public, type Principal } from '@svc/auth';
import { Clock } from '@svc/config';
import { isDomainError } from '@svc/errors';
import { ApiDoc } from '@svc/server';
import type { FastifyReply } from 'fastify';
import { ApplicationsRepository } from '../applications/applications.repository';
import type { DecisionSession } from '../decisions/decision';
import { pageView } from '../decisions/decision.views';
import type { CreateDecisionBody } from '../decisions/decisions.dto';
import { sessionDigest } from '../decisions/session-token';
import { CreateDecisionSession } from '../decisions/use-cases/create-decision-session.use-case';
import { ApprovalUrls } from '../notifications/approval-urls';
import { PersonNotices } from '../people/person-notices';
import { ReadDecisionSession } from '../decisions/use-cases/read-decision-session.use-case';
import { AllowedOrigins } from './allowed-origins';
import { FlowPresentations } from './flow-presentation';
import { DropReportBody } from './hosted.dto';
import { HostedRepository } from './hosted.repository';
import { negotiateLocale } from './i18n';
import { contentSecurityPolicy, imageOrigin, newNonce, sendHtml } from './page-security';
import { PostMessageDrops } from './postmessage-drops';
import { renderDecisionPage, renderErrorPage, type ErrorPageKind, type FlowPresentation, type PageModel } from './render-page';

/** Query parameters are read one by one: a repeated parameter arrives as an array and is refused. */
type QueryValue = string | string[] | undefined;

/**
 * The hosted decision pages (spec, Endpoints: hosted pages). No cookies anywhere: the session
 * token in the URL is the capability (embeds run with third-party cookies blocked), so every
 * page is `no-store` and `Referrer-Policy: no-referrer`.
 */
@Controller()
export class HostedPagesController {
  constructor(
    private readonly read: ReadDecisionSession,
    private readonly create: CreateDecisionSession,
    private readonly origins: AllowedOrigins,
    private readonly flows: FlowPresentations,
    private readonly drops: PostMessageDrops,
    private readonly applications: ApplicationsRepository,
    private readonly hosted: HostedRepository,
    private readonly clock: Clock,
    private readonly personNotices: PersonNotices,
    private readonly signingOutcomes: SigningOutcomes,
    private readonly approvalUrls: ApprovalUrls,
  ) {}

  /**
   * Full page. `?origin=` (popup mode, set by the SDK): the opener's origin, posted to only when it
   * is an allowed origin. `?redirect_uri=` (redirect mode): must lie on an allowed origin.
   */
  @Get('decisions/:session_token')
  @Public()
  @ApiDoc({
    tag: 'Decision page',
    summary: 'Hosted decision page (HTML); query origin (popup opener), redirect_uri (redirect mode)',
    response: 'The decision page',
    produces: 'text/html',
    errors: [400, 404],
  })
  async page(
    @Param('session_token') token: string,
    @Query('origin') origin: QueryValue,
    @Query('redirect_uri') redirectUri: QueryValue,
    @Headers('accept-language') acceptLanguage: string | undefined,
    @Res() reply: FastifyReply,
  ): Promise<FastifyReply> {
    const nonce = newNonce();
    const session = await this.session(token);
    if (!session) return errorPage(reply, 404, acceptLanguage, null, nonce, 'not_found');
    const allowed = await this.origins.list(session.applicationId);
    let checkedRedirect: string | null = null;
    if (redirectUri !== undefined) {
      checkedRedirect = AllowedOrigins.redirectUri(redirectUri, allowed);
      if (!checkedRedirect) return errorPage(reply, 400, acceptLanguage, null, nonce, 'redirect_uri_not_allowed');
    }
    const model = await this.model(session, token, nonce, acceptLanguage, {
      variant: 'full',
      target: origin !== undefined ? 'opener' : 'none',
      parentOrigin: origin !== undefined ? AllowedOrigins.match(origin, allowed) : null,
      readyDropCounted: false,
      redirectUri: checkedRedirect,
    });
    return sendHtml(reply, 200, renderDecisionPage(model), pagePolicy(model, nonce, []), model.locale);
  }

  /**
   * Iframe page. `frame-ancestors` lists the application's allowed origins only. The parent's
   * origin comes from `?origin=` (the SDK sets it), else the origin the session was minted for,
   * else the Referer's origin; it is written into the page only if it is allowed. When none is,
   * the browser refuses the frame, so the server counts the undeliverable svc:ready itself.
   */
  @Get('decisions/:session_token/embed')
  @Public()
  @ApiDoc({
    tag: 'Decision page',
    summary: 'Hosted decision page for an iframe (HTML); query origin = the embedding origin',
    response: 'The decision page for an iframe',
    produces: 'text/html',
    errors: [404],
  })
  async embed(
    @Param('session_token') token: string,
    @Query('origin') origin: QueryValue,
    @Headers('referer') referer: string | undefined,
    @Headers('accept-language') acceptLanguage: string | undefined,
    @Res() reply: FastifyReply,
  ): Promise<FastifyReply> {
    const nonce = newNonce();
    const session = await this.session(token);
    if (!session) return errorPage(reply, 404, acceptLanguage, null, nonce, 'not_found');
    const allowed = await this.origins.list(session.applicationId);
    const candidate = origin ?? session.embedOrigin ?? refererOrigin(referer);
    const parentOrigin = AllowedOrigins.match(candidate, allowed);
    if (!parentOrigin) this.drops.record('origin_missing');
    const model = await this.model(session, token, nonce, acceptLanguage, {
      variant: 'embed',
      target: 'parent',
      parentOrigin,
      readyDropCounted: !parentOrigin,
      redirectUri: null,
    });
    return sendHtml(reply, 200, renderDecisionPage(model), pagePolicy(model, nonce, allowed), model.locale);
  }

  /**
   * The signed approval URL an approver received by email (spec: escalate → "signed approval URL
   * sent"): a JWS (`iss_role` `approval_url_signer`) naming one escalation and one approver,
   * expiring with the escalation. Until the deadline it opens the escalation's approval page; at or
   * after it, and once the approval expired, it answers 410 with an expired page. Anything else
   * (bad signature, another kind of token, an approver the escalation does not ask) is 404.
   */
  @Get('approvals/:approval_token')
  @Public()
  @ApiDoc({
    tag: 'Decision page',
    summary: "Signed approval URL of an escalation's approver (HTML): the approval page until the deadline, 410 after",
    response: 'The approval page',
    produces: 'text/html',
    errors: [404, 410],
  })
  async approvalLink(
    @Param('approval_token') approvalToken: string,
    @Headers('accept-language') acceptLanguage: string | undefined,
    @Res() reply: FastifyReply,
  ): Promise<FastifyReply> {
    const nonce = newNonce();
    const claims = await this.approvalUrls.verify(approvalToken);
    if (claims === 'expired') return errorPage(reply, 410, acceptLanguage, null, nonce, 'link_expired');
    if (claims === 'invalid') return errorPage(reply, 404, acceptLanguage, null, nonce, 'not_found');
    let session: DecisionSession;
    try {
      session = await this.read.execute(claims.sessionTokenSha256);
    } catch (error) {
      if (isDomainError(error) && error.kind === 'not_found') return errorPage(reply, 404, acceptLanguage, null, nonce, 'not_found');
      throw error;
    }
    const sessionToken = session.decisionUrl.split('/').at(-1) ?? '';
    if (
      session.kind !== 'approval' ||
      session.reference !== claims.escalationId ||
      !session.participants.includes(claims.approverId) ||
      !sessionToken
    ) {
      return errorPage(reply, 404, acceptLanguage, null, nonce, 'not_found');
    }
    if (session.status === 'expired' || session.deadline.getTime() <= this.clock.now().getTime())
      return errorPage(reply, 410, acceptLanguage, null, nonce, 'link_expired');
    const model = await this.model(session, sessionToken, nonce, acceptLanguage, {
      variant: 'full',
      target: 'none',
      parentOrigin: null,
      readyDropCounted: false,
      redirectUri: null,
    });
    return sendHtml(reply, 200, renderDecisionPage(model), pagePolicy(model, nonce, []), model.locale);
  }

  /** The frame's report of messages it dropped for want of an allowed target origin. */
  @Post('decisions/:session_token/postmessage_drops')
  @Public()
  @HttpCode(204)
  @ApiDoc({
    tag: 'Decision page',
    summary: 'Report postMessage drops (counts trust_surface_postmessage_dropped_total{reason})',
    response: '204',
    errors: [400, 404, 422],
  })
  async reportDrops(@Param('session_token') token: string, @Body() body: DropReportBody): Promise<void> {
    await this.read.execute(sessionDigest(token));
    this.drops.record(body.reason, body.count);
  }

  /**
   * The retired operator inbox URL (spec, Versioning 3): with a session token in the query
   * (`token` or `session_token`) it answers 301 to the unified decision page during the migration
   * window; without one it is gone (404 page). The token is only reshaped into the path, never
   * looked up, so the redirect tells nothing about it.
   */
  @Get('oap/escalations')
  @Public()
  @ApiDoc({
    tag: 'Decision page',
    summary: 'Legacy escalation URL: 301 to /decisions/:session_token (query token or session_token); retired without a token',
    response: 'Moved Permanently: the decision page (`Location`)',
    status: 301,
    errors: [404],
  })
  legacyEscalation(
    @Query('token') token: QueryValue,
    @Query('session_token') sessionToken: QueryValue,
    @Headers('accept-language') acceptLanguage: string | undefined,
    @Res() reply: FastifyReply,
  ): FastifyReply | Promise<FastifyReply> {
    const value = typeof token === 'string' ? token : typeof sessionToken === 'string' ? sessionToken : undefined;
    if (value === undefined || !/^(dts_)?[A-Za-z0-9_-]{43}$/.test(value))
      return errorPage(reply, 404, acceptLanguage, null, newNonce(), 'not_found');
    return reply
      .code(301)
      .header('location', `/decisions/${value}`)
      .header('cache-control', 'no-store')
      .header('referrer-policy', 'no-referrer')
      .send();
  }

  /**
   * Hosted flow page: opens a consent session on the flow's active version for its application
   * and sends the browser (303) to the decision page; `redirect_uri` carries on to it. A draft or
   * unknown flow answers 404.
   */
  @Get('accord/:flow_id')
  @Public()
  @ApiDoc({
    tag: 'Decision page',
    summary: 'Hosted flow page: opens a consent session and redirects to /decisions/:session_token; query redirect_uri',
    response: 'See Other: the decision page of the new session (`Location`)',
    status: 303,
    errors: [400, 404],
  })
  async accord(
    @Param('flow_id') flowId: string,
    @Query('redirect_uri') redirectUri: QueryValue,
    @Headers('accept-language') acceptLanguage: string | undefined,
    @Res() reply: FastifyReply,
  ): Promise<FastifyReply> {
    const nonce = newNonce();
    const notFound = () => errorPage(reply, 404, acceptLanguage, null, nonce, 'not_found');
    if (!/^flw_[a-z]+_[A-Za-z0-9_-]{1,80}$/.test(flowId)) return notFound();
    const applicationId = await this.hosted.flowApplication(flowId);
    const application = applicationId ? await this.applications.findApplication(applicationId) : undefined;
    if (!application) return notFound();
    const flow = await this.flows.get(application.id, flowId, 0);
    if (!flow.found || flow.status !== 'active' || flow.activeVersion === 0) return notFound();
    let checkedRedirect: string | null = null;
    if (redirectUri !== undefined) {
      checkedRedirect = AllowedOrigins.redirectUri(redirectUri, await this.origins.list(application.id));
      if (!checkedRedirect) return errorPage(reply, 400, acceptLanguage, flow.locale, nonce, 'redirect_uri_not_allowed');
    }
    // The page acts for the application the way its own server would when minting.
    const principal: Principal = {
      kind: 'api_token',
      applicationId: application.id,
      credentialId: 'hosted_flow_page',
      scopes: [],
      environment: application.environment,
      region: application.region,
      mode: application.mode,
    };
    const body = { kind: 'consent', flow_id: flowId, delivery_mode: checkedRedirect ? 'redirect' : 'direct' } as CreateDecisionBody;
    const { sessionToken } = await this.create.execute(principal, body, 'decisions');
    const location = `/decisions/${sessionToken}${checkedRedirect ? `?redirect_uri=${encodeURIComponent(checkedRedirect)}` : ''}`;
    return reply.code(303).header('location', location).header('cache-control', 'no-store').header('referrer-policy', 'no-referrer').send();
  }

  /** The session of a page, or null for a malformed or unknown token (a 404 page, never 5xx). */
  private async session(token: string): Promise<DecisionSession | null> {
    try {
      return await this.read.executeByToken(token);
    } catch (error) {
      if (isDomainError(error) && error.kind === 'not_found') return null;
      throw error;
    }
  }

  private async model(
    session: DecisionSession,
    token: string,
    nonce: string,
    acceptLanguage: string | undefined,
    delivery: Pick<PageModel, 'variant' | 'target' | 'parentOrigin' | 'readyDropCounted' | 'redirectUri'>,
  ): Promise<PageModel> {
    const flow = await this.flowOf(session);
    const application = await this.applications.findApplication(session.applicationId);
    const locale = negotiateLocale(acceptLanguage, flow?.locale);
    return {
      personNotice: await this.personNotices.forSession(session, locale),
      passkeySigning: (await this.signingOutcomes.passkeyOptions(session)) as PageModel['passkeySigning'],
      session,
      sessionToken: token,
      state: pageView(session),
      flow,
      locale,
      applicationName: application?.name ?? null,
      branding: { name: application?.name ?? null, logoUrl: application?.logoUrl ?? null, brandColor: application?.brandColor ?? null },
      serverNow: this.clock.now(),
      nonce,
      ...delivery,
    };
  }

  /** The wording of the flow version the session is bound to; a page still renders without it. */
  private async flowOf(session: DecisionSession): Promise<FlowPresentation | null> {
    if (session.kind !== 'consent' || !session.flowId) return null;
    try {
      const facts = await this.flows.get(session.applicationId, session.flowId, session.flowVersion ?? 0);
      return facts.found ? facts : null;
    } catch {
      return null;
    }
  }
}

/** The page's CSP: the application's logo origin (https, validated when set) is the one image source added. */
function pagePolicy(model: PageModel, nonce: string, frameAncestors: readonly string[]): string {
  const logo = imageOrigin(model.branding?.logoUrl);
  return contentSecurityPolicy(nonce, frameAncestors, { imageOrigins: logo ? [logo] : [] });
}

/** An error page in the browser's language (then the flow's, then English). */
function errorPage(
  reply: FastifyReply,
  status: number,
  acceptLanguage: string | undefined,
  flowLocale: string | null,
  nonce: string,
  kind: ErrorPageKind,
): FastifyReply {
  const locale = negotiateLocale(acceptLanguage, flowLocale);
  return sendHtml(reply, status, renderErrorPage(locale, nonce, kind), contentSecurityPolicy(nonce, []), locale);
}

function refererOrigin(referer: string | undefined): string | undefined {
  if (!referer) return undefined;
  try {
    return new URL(referer).origin;
  } catch {
    return undefined;
  }
}
