import { Inject, Injectable } from '@nestjs/common';
import { Clock } from '@svc/config';
import type { OutboxWriter } from '@svc/persistence';
import { OVERSIGHT_OUTBOX } from '../../tokens';
import type { TrustedAttester } from '../attester';
import { AttestersRepository } from '../attesters.repository';
import { emitAttesterChanged, ownedAttester } from './owned-attester';

/**
 * Destroys an attester permanently: both token slots are cleared (a presented token then answers
 * 401 `invalid_token` like any unknown one); later lifecycle calls answer 410
 * `attester_destroyed`. Its attestations and receipts are kept: they are evidence.
 */
@Injectable()
export class DestroyAttester {
  constructor(
    private readonly attesters: AttestersRepository,
    @Inject(OVERSIGHT_OUTBOX) private readonly outbox: OutboxWriter,
    private readonly clock: Clock,
  ) {}

  async execute(applicationId: string, id: string): Promise<TrustedAttester> {
    const now = this.clock.now();
    return this.attesters.transaction(async (manager) => {
      await ownedAttester(this.attesters, manager, applicationId, id, { live: true });
      const destroyed = await this.attesters.destroy(manager, id, now);
      await emitAttesterChanged(this.outbox, manager, destroyed, 'destroyed', now);
      return destroyed;
    });
  }
}
