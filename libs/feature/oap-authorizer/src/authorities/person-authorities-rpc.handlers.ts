import { Controller } from '@nestjs/common';
import type { Principal } from '@svc/auth';
import { RpcHandler, type RpcReplyInit, type RpcRequest } from '@svc/bus';
import { PlatformConfig } from '@svc/config';
import { isDomainError } from '@svc/errors';
import { isIdOf } from '@svc/ids';
import type { Authority } from './authority';
import { AuthoritiesRepository } from './authorities.repository';
import { RevokeAuthority } from './use-cases/revoke-authority.use-case';

const view = (a: Authority) => ({ authorityId: a.id, applicationId: a.applicationId, agentId: a.agentId, status: a.status });

/**
 * Serves decision-gateway's connections: `oap.person_authorities` (the authorities a person granted,
 * active or suspended) and `oap.revoke_person_authorities` (revokes them, of one application or
 * all, each exactly as the person's own `POST /api/v1/authorities/:id/revoke`: `authority.revoked`).
 */
@Controller()
export class PersonAuthoritiesRpcHandlers {
  constructor(
    private readonly authorities: AuthoritiesRepository,
    private readonly revokeAuthority: RevokeAuthority,
    private readonly config: PlatformConfig,
  ) {}

  @RpcHandler('oap.person_authorities')
  async list(request: RpcRequest<'oap.person_authorities'>): Promise<RpcReplyInit<'oap.person_authorities'>> {
    if (!isIdOf('person', request.personId)) return { authorities: [] };
    return { authorities: (await this.authorities.inForceForPrincipal(request.personId, request.applicationId || undefined)).map(view) };
  }

  @RpcHandler('oap.revoke_person_authorities')
  async revoke(request: RpcRequest<'oap.revoke_person_authorities'>): Promise<RpcReplyInit<'oap.revoke_person_authorities'>> {
    if (!isIdOf('person', request.personId)) return { authorities: [] };
    const person: Principal = {
      kind: 'access_token',
      applicationId: '',
      credentialId: 'connections',
      scopes: [],
      environment: 'development',
      region: this.config.REGION,
      mode: '',
      personId: request.personId,
    };
    const revoked: Authority[] = [];
    for (const authority of await this.authorities.inForceForPrincipal(request.personId, request.applicationId || undefined)) {
      try {
        revoked.push(await this.revokeAuthority.execute(person, authority.id, 'principal_disconnected'));
      } catch (error) {
        // Revoked meanwhile: nothing left to do for that one.
        if (!isDomainError(error) || error.kind !== 'conflict') throw error;
      }
    }
    return { authorities: revoked.map(view) };
  }
}
