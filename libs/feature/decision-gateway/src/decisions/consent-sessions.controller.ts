import { Body, Controller, Headers, Post, UseInterceptors } from '@nestjs/common';
import { Auth, CurrentPrincipal, type Principal } from '@svc/auth';
import { ApiDoc, ApiResponseOf } from '@svc/server';
import { DecisionSessionCreatedResponse } from './decision.responses';
import { mintedView } from './decision.views';
import { ConsentSessionBody } from './decisions.dto';
import { DeprecatedAliasHeaders } from './deprecated-alias.interceptor';
import { CreateDecisionSession } from './use-cases/create-decision-session.use-case';

/**
 * POST /api/v1/consent_sessions: deprecated alias of POST /api/v1/decisions with kind consent
 * (spec, Versioning 2). Its session tokens work on every /api/v1/decisions/... route.
 */
@Controller('api/v1/consent_sessions')
@UseInterceptors(DeprecatedAliasHeaders)
export class ConsentSessionsController {
  constructor(private readonly create: CreateDecisionSession) {}

  @Post()
  @Auth('api_token', 'publishable_key')
  @ApiDoc({
    tag: 'Decisions',
    summary: 'Deprecated alias of POST /api/v1/decisions (kind consent); answers with Deprecation and Sunset headers',
    response:
      'decision_session: object, session_token (dts_…), kind, status, decision_url, embed_url (consent; null otherwise), deadline, delivery_mode, flow_id, flow_version, created_at; approval_ttl_at on approvals',
    errors: [400, 401, 403, 404, 409, 421, 422],
    deprecated: true,
  })
  @ApiResponseOf(DecisionSessionCreatedResponse)
  async mint(
    @CurrentPrincipal() principal: Principal,
    @Body() body: ConsentSessionBody,
    @Headers('origin') origin: string | undefined,
  ): Promise<Record<string, unknown>> {
    const { session, sessionToken } = await this.create.execute(principal, { ...body, kind: 'consent' }, 'consent_sessions', origin);
    return mintedView(session, sessionToken);
  }
}
