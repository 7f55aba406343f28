import { Inject, Injectable } from '@nestjs/common';
import { Clock } from '@svc/config';
import type { OutboxWriter } from '@svc/persistence';
import { OVERSIGHT_OUTBOX } from '../../tokens';
import type { TrustedAttester } from '../attester';
import { AttestersRepository } from '../attesters.repository';
import { emitAttesterChanged, ownedAttester } from './owned-attester';

/** Reverses a suspension; unsuspending an active attester changes nothing. */
@Injectable()
export class UnsuspendAttester {
  constructor(
    private readonly attesters: AttestersRepository,
    @Inject(OVERSIGHT_OUTBOX) private readonly outbox: OutboxWriter,
    private readonly clock: Clock,
  ) {}

  async execute(applicationId: string, id: string): Promise<TrustedAttester> {
    const now = this.clock.now();
    return this.attesters.transaction(async (manager) => {
      const attester = await ownedAttester(this.attesters, manager, applicationId, id, { live: true });
      if (attester.status === 'active') return attester;
      const active = await this.attesters.setStatus(manager, id, 'active', now);
      await emitAttesterChanged(this.outbox, manager, active, 'unsuspended', now);
      return active;
    });
  }
}
