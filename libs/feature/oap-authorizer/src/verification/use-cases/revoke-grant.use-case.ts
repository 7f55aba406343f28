import { Inject, Injectable } from '@nestjs/common';
import type { Principal } from '@svc/auth';
import { Clock, PlatformConfig, homeRegionOf, isRegion } from '@svc/config';
import { WrongRegionError } from '@svc/errors';
import { parseId } from '@svc/ids';
import type { OutboxWriter } from '@svc/persistence';
import { GrantsRepository } from '../../grants/grants.repository';
import { oapError } from '../../oap.errors';
import { OAP_OUTBOX } from '../../tokens';
import type { RevocationReasonCode } from '../revocation-reason';

/** A revocation as listed and answered. */
export interface Revocation {
  grantId: string;
  reasonCode: RevocationReasonCode;
  reason: string;
  revokedAt: Date;
}

/**
 * Revokes a grant of the caller's application: the grant row, the revocation list entry and the
 * `grant.revoked` event commit together. Idempotent: revoking a revoked grant answers the first
 * revocation. svc-verify in every region asks the grant's home region, so the revocation is
 * visible everywhere at once.
 */
@Injectable()
export class RevokeGrant {
  constructor(
    private readonly grants: GrantsRepository,
    @Inject(OAP_OUTBOX) private readonly outbox: OutboxWriter,
    private readonly clock: Clock,
    private readonly config: PlatformConfig,
  ) {}

  async execute(
    principal: Principal,
    grantId: string,
    reasonCode: RevocationReasonCode,
    reason: string,
  ): Promise<{ revocation: Revocation; created: boolean }> {
    const parsed = parseId(grantId);
    if (parsed?.kind === 'oap_grant' && isRegion(parsed.region) && parsed.region !== this.config.REGION) {
      throw new WrongRegionError(homeRegionOf(this.config, parsed.region), 'grant_region_mismatch');
    }
    const existing = await this.grants.find(grantId);
    if (!existing || existing.applicationId !== principal.applicationId)
      throw oapError('grant_not_found', 'Grant not found', { grant_id: grantId });
    const now = this.clock.now();
    return this.grants.transaction(async (manager) => {
      const result = await this.grants.revoke(manager, grantId, now);
      if (!result) throw oapError('grant_not_found', 'Grant not found', { grant_id: grantId });
      if (!result.changed) {
        const rows: Array<{ reason_code: RevocationReasonCode; reason: string; revoked_at: Date }> = await manager.query(
          `SELECT reason_code, reason, revoked_at FROM oap.revocations WHERE grant_id = $1`,
          [grantId],
        );
        return {
          revocation: {
            grantId,
            reasonCode: rows[0]?.reason_code ?? 'unspecified',
            reason: rows[0]?.reason ?? '',
            revokedAt: rows[0]?.revoked_at ?? result.grant.revokedAt ?? now,
          },
          created: false,
        };
      }
      await manager.query(
        `INSERT INTO oap.revocations (grant_id, application_id, reason_code, reason, revoked_at) VALUES ($1, $2, $3, $4, $5)`,
        [grantId, principal.applicationId, reasonCode, reason, now],
      );
      await this.outbox.add(
        manager,
        'grant.revoked',
        { grantId, reason, revokedAt: now.toISOString() },
        { applicationId: principal.applicationId, occurredAt: now },
      );
      return { revocation: { grantId, reasonCode, reason, revokedAt: now }, created: true };
    });
  }
}
