import { Injectable } from '@nestjs/common';
import { Clock } from '@svc/config';
import { oapError } from '../../oap.errors';
import { TrustScores } from '../trust-scores';
import type { Vouch } from '../vouch';
import { VouchesRepository } from '../vouches.repository';

/**
 * Revokes a vouch of the caller's application and recomputes the subject's trust score in the same
 * transaction, so the next grant request reads the lowered score at step 9. Another application's
 * vouch answers 404 like an unknown one.
 */
@Injectable()
export class RevokeVouch {
  constructor(
    private readonly vouches: VouchesRepository,
    private readonly scores: TrustScores,
    private readonly clock: Clock,
  ) {}

  async execute(applicationId: string, vouchId: string): Promise<Vouch> {
    const now = this.clock.now();
    return this.vouches.transaction(async (manager) => {
      const vouch = await this.vouches.find(vouchId, manager, true);
      if (vouch?.applicationId !== applicationId) throw oapError('vouch_not_found', 'Vouch not found', { vouch_id: vouchId });
      if (vouch.revokedAt) throw oapError('vouch_already_revoked', 'The vouch is already revoked', { vouch_id: vouchId });
      await this.vouches.revoke(manager, vouchId, now);
      await this.scores.refresh(manager, vouch.subjectId, now);
      return { ...vouch, revokedAt: now };
    });
  }
}
