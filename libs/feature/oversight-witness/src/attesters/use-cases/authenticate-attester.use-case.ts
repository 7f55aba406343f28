import { Injectable } from '@nestjs/common';
import { Clock } from '@svc/config';
import { oversightError } from '../../oversight.errors';
import type { AttesterPermission, AttesterPrincipal } from '../attester';
import { AttestersRepository } from '../attesters.repository';

const WWW_AUTHENTICATE = { 'WWW-Authenticate': 'Bearer realm="svc", error="invalid_token"' };

/**
 * Resolves a trusted attester token's SHA-256 to its attester and checks a permission. Order
 * matters for the threat model: unknown, destroyed or past-overlap digests are 401
 * `invalid_token` before anything about the attester is revealed; a genuine token of a suspended
 * attester is 403 `attester_suspended` (the spec's distinct denial); a missing permission is 403
 * `insufficient_permission`. Used by {@link AttesterAuthGuard} and by RPC
 * `oversight.authenticate_attester` for oap-authorizer's attester routes.
 */
@Injectable()
export class AuthenticateAttester {
  constructor(
    private readonly attesters: AttestersRepository,
    private readonly clock: Clock,
  ) {}

  async execute(tokenSha256: string, permission?: AttesterPermission): Promise<AttesterPrincipal> {
    const found = /^[0-9a-f]{64}$/.test(tokenSha256) ? await this.attesters.findByTokenDigest(tokenSha256, this.clock.now()) : undefined;
    if (!found) throw oversightError('invalid_token', 'The trusted attester token is not valid', undefined, WWW_AUTHENTICATE);
    if (found.attester.status === 'suspended') {
      throw oversightError('attester_suspended', 'This trusted attester is suspended; ask the application owner to unsuspend it', {
        attester_id: found.attester.id,
      });
    }
    if (permission && !found.attester.permissions.includes(permission)) {
      throw oversightError('insufficient_permission', `This trusted attester lacks the permission ${permission}`, {
        required_permission: permission,
      });
    }
    return found;
  }
}
