import { Body, Controller, Delete, Get, HttpCode, Put } from '@nestjs/common';
import { CurrentPrincipal, type Principal } from '@svc/auth';
import { ApiDoc, ApiResponseOf } from '@svc/server';
import { oversightError } from '../oversight.errors';
import { PolicyEngineEnvelopeResponse, policyEngineView } from './policy-engine.response';
import { SetPolicyEngineBody } from './policy-engines.dto';
import { PolicyEnginesRepository } from './policy-engines.repository';
import { SetPolicyEngine } from './set-policy-engine.use-case';

const ENGINE_RESPONSE =
  'policy_engine {object, protocol (authzen-1.0), url, evaluation_url, attester_id, credential_type, credential_header, credential_configured, timeout_ms, created_at, updated_at}; never the credential';

/**
 * The calling application's own policy engine (API token): the OpenID AuthZEN 1.0 PDP that decides
 * the grant requests of agent classes a hybrid application routes to `oversight`
 * (…/agent_class_routes). One per application; PUT creates or replaces it.
 */
@Controller('api/v1/oap/attestations/policy_engine')
export class PolicyEnginesController {
  constructor(
    private readonly engines: PolicyEnginesRepository,
    private readonly setEngine: SetPolicyEngine,
  ) {}

  @ApiDoc({
    tag: 'OAP Oversight',
    summary: "Set the application's AuthZEN 1.0 policy engine (URL, trusted attester, credential stored encrypted, timeout)",
    response: ENGINE_RESPONSE,
    errors: [400, 401, 422],
  })
  @Put()
  @ApiResponseOf(PolicyEngineEnvelopeResponse)
  async set(@CurrentPrincipal() principal: Principal, @Body() body: SetPolicyEngineBody): Promise<PolicyEngineEnvelopeResponse> {
    return { policy_engine: policyEngineView(await this.setEngine.execute(principal.applicationId, principal.environment, body)) };
  }

  @ApiDoc({ tag: 'OAP Oversight', summary: "The application's policy engine", response: ENGINE_RESPONSE, errors: [401, 404] })
  @Get()
  @ApiResponseOf(PolicyEngineEnvelopeResponse)
  async get(@CurrentPrincipal() principal: Principal): Promise<PolicyEngineEnvelopeResponse> {
    const engine = await this.engines.find(principal.applicationId);
    if (!engine) throw oversightError('policy_engine_not_found', 'The application has no policy engine');
    return { policy_engine: policyEngineView(engine) };
  }

  /** Removes the engine (its credential with it); grant requests of oversight classes are then denied `policy_engine_not_configured`. */
  @ApiDoc({ tag: 'OAP Oversight', summary: "Remove the application's policy engine", errors: [401, 404] })
  @Delete()
  @HttpCode(204)
  async remove(@CurrentPrincipal() principal: Principal): Promise<void> {
    if (!(await this.engines.remove(principal.applicationId)))
      throw oversightError('policy_engine_not_found', 'The application has no policy engine');
  }
}
