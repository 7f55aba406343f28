import { Controller } from '@nestjs/common';
import { RpcHandler, type RpcReplyInit, type RpcRequest } from '@svc/bus';
import { ATTESTER_PERMISSIONS, type AttesterPermission } from '../attesters/attester';
import { AuthenticateAttester } from '../attesters/use-cases/authenticate-attester.use-case';
import { oversightError } from '../oversight.errors';
import { EvaluateGrant } from '../policy-engines/evaluate-grant.use-case';
import { ResolveAgentClassRoute } from './resolve-agent-class-route.use-case';

/**
 * Serves oversight-witness's RPC methods for oap-authorizer (any process of the region):
 * `oversight.agent_class_route` — does a grant request of a hybrid application belong to the
 * cascade or to the customer's engine (unknown application: `application_not_found`);
 * `oversight.authenticate_attester` — the trusted attester behind a token digest, with the same
 * reason codes as this service's own attester routes (for /api/v1/oap/revocations, escalations);
 * `oversight.evaluate_grant` — the customer's AuthZEN engine decides a grant request of a class
 * routed to oversight, and its answer is witnessed (outcome `unavailable` / `not_configured` when
 * it could not decide: the caller fails closed).
 */
@Controller()
export class OversightRpcHandlers {
  constructor(
    private readonly resolveRoute: ResolveAgentClassRoute,
    private readonly authenticateAttester: AuthenticateAttester,
    private readonly evaluateGrant: EvaluateGrant,
  ) {}

  @RpcHandler('oversight.evaluate_grant')
  async evaluate(request: RpcRequest<'oversight.evaluate_grant'>): Promise<RpcReplyInit<'oversight.evaluate_grant'>> {
    const result = await this.evaluateGrant.execute({
      applicationId: request.applicationId,
      environment: request.environment === 'production' ? 'production' : 'development',
      agentClass: request.agentClass,
      agentId: request.agentId,
      scopes: request.scopes,
      actions: request.actions,
      value: request.amount === '' ? undefined : { amount: request.amount, currency: request.currency },
      purpose: request.purpose === '' ? undefined : request.purpose,
      jurisdiction: request.jurisdiction === '' ? undefined : request.jurisdiction,
      validUntil: request.validUntil,
      authorityId: request.authorityId === '' ? undefined : request.authorityId,
      requestId: request.requestId,
    });
    if ('attestationId' in result) {
      return {
        outcome: result.outcome,
        attestationId: result.attestationId,
        receipt: result.receipt,
        sequenceNumber: BigInt(result.sequenceNumber),
        policyRef: result.policyRef,
      };
    }
    return { outcome: result.outcome, reason: result.reason, policyRef: result.policyRef };
  }

  @RpcHandler('oversight.agent_class_route')
  async agentClassRoute(request: RpcRequest<'oversight.agent_class_route'>): Promise<RpcReplyInit<'oversight.agent_class_route'>> {
    const resolved = await this.resolveRoute.execute(request.applicationId, request.agentClass);
    return { mode: resolved.mode, route: resolved.route, configured: resolved.configured };
  }

  @RpcHandler('oversight.authenticate_attester')
  async authenticate(request: RpcRequest<'oversight.authenticate_attester'>): Promise<RpcReplyInit<'oversight.authenticate_attester'>> {
    const permission = request.permission === '' ? undefined : request.permission;
    if (permission !== undefined && !(ATTESTER_PERMISSIONS as readonly string[]).includes(permission)) {
      throw oversightError('insufficient_permission', `Unknown attester permission ${permission}`, { required_permission: permission });
    }
    const { attester } = await this.authenticateAttester.execute(request.tokenSha256, permission as AttesterPermission | undefined);
    return {
      attesterId: attester.id,
      applicationId: attester.applicationId,
      permissions: attester.permissions,
      scopeApplicationId: attester.scopeApplicationId ?? '',
    };
  }
}
