import { Inject, Injectable } from '@nestjs/common';
import { Clock, PlatformConfig } from '@svc/config';
import type { OutboxWriter } from '@svc/persistence';
import { OVERSIGHT_OUTBOX } from '../../tokens';
import { DEFAULT_ROTATION_OVERLAP_SECONDS, attesterTokenDigest, newAttesterToken, type TrustedAttester } from '../attester';
import { AttestersRepository } from '../attesters.repository';
import { emitAttesterChanged, ownedAttester } from './owned-attester';

/**
 * Rotates an attester's token: the new token goes into the current slot, the old one into the
 * second slot where it is honoured for `overlapSeconds` (default 24 h; 0 ends it at once). A
 * rotation during an overlap drops the oldest token immediately: at most two tokens ever work.
 * A suspended attester may rotate (a suspected leak is the usual reason to do both).
 */
@Injectable()
export class RotateAttester {
  constructor(
    private readonly attesters: AttestersRepository,
    @Inject(OVERSIGHT_OUTBOX) private readonly outbox: OutboxWriter,
    private readonly clock: Clock,
    private readonly config: PlatformConfig,
  ) {}

  async execute(
    applicationId: string,
    id: string,
    overlapSeconds = DEFAULT_ROTATION_OVERLAP_SECONDS,
  ): Promise<{ attester: TrustedAttester; token: string }> {
    if (!Number.isInteger(overlapSeconds) || overlapSeconds < 0) throw new TypeError('overlapSeconds must be a non-negative integer');
    const now = this.clock.now();
    const token = newAttesterToken(this.config.REGION);
    const attester = await this.attesters.transaction(async (manager) => {
      await ownedAttester(this.attesters, manager, applicationId, id, { live: true });
      const rotated = await this.attesters.rotate(
        manager,
        id,
        attesterTokenDigest(token),
        new Date(now.getTime() + overlapSeconds * 1000),
        now,
      );
      await emitAttesterChanged(this.outbox, manager, rotated, 'rotated', now);
      return rotated;
    });
    return { attester, token };
  }
}
