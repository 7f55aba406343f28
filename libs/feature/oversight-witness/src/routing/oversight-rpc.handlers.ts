import { Injectable, type OnModuleInit } from '@nestjs/common';
import { RpcServer } from '@svc/bus';
import { ATTESTER_PERMISSIONS, type AttesterPermission } from '../attesters/attester';
import { AuthenticateAttester } from '../attesters/use-cases/authenticate-attester.use-case';
import { oversightError } from '../oversight.errors';
import { ResolveAgentClassRoute } from './resolve-agent-class-route.use-case';

/**
 * Serves oversight-witness's RPC methods for oap-authorizer (any process of the region):
 * `oversight.agent_class_route` — does a grant request of a hybrid application belong to the
 * cascade or to the customer's engine (unknown application: `application_not_found`);
 * `oversight.authenticate_attester` — the trusted attester behind a token digest, with the same
 * reason codes as this service's own attester routes (for /api/v1/oap/revocations, escalations).
 */
@Injectable()
export class OversightRpcHandlers implements OnModuleInit {
  constructor(
    private readonly rpc: RpcServer,
    private readonly resolveRoute: ResolveAgentClassRoute,
    private readonly authenticateAttester: AuthenticateAttester,
  ) {}

  onModuleInit(): void {
    this.rpc.handle('oversight.agent_class_route', async (request) => {
      const resolved = await this.resolveRoute.execute(request.applicationId, request.agentClass);
      return { mode: resolved.mode, route: resolved.route, configured: resolved.configured };
    });
    this.rpc.handle('oversight.authenticate_attester', async (request) => {
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
    });
  }
}
