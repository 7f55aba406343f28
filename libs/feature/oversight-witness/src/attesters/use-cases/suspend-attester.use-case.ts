import { Inject, Injectable } from '@nestjs/common';
import { Clock } from '@svc/config';
import type { OutboxWriter } from '@svc/persistence';
import { OVERSIGHT_OUTBOX } from '../../tokens';
import type { TrustedAttester } from '../attester';
import { AttestersRepository } from '../attesters.repository';
import { emitAttesterChanged, ownedAttester } from './owned-attester';

/**
 * Suspends an attester: its tokens stay recognised but every call answers 403
 * `attester_suspended` (distinct from 401 `invalid_token`), so the engine's operators learn why
 * rather than suspecting a broken token. Suspending a suspended attester changes nothing.
 */
@Injectable()
export class SuspendAttester {
  constructor(
    private readonly attesters: AttestersRepository,
    @Inject(OVERSIGHT_OUTBOX) private readonly outbox: OutboxWriter,
    private readonly clock: Clock,
  ) {}

  async execute(applicationId: string, id: string): Promise<TrustedAttester> {
    const now = this.clock.now();
    return this.attesters.transaction(async (manager) => {
      const attester = await ownedAttester(this.attesters, manager, applicationId, id, { live: true });
      if (attester.status === 'suspended') return attester;
      const suspended = await this.attesters.setStatus(manager, id, 'suspended', now);
      await emitAttesterChanged(this.outbox, manager, suspended, 'suspended', now);
      return suspended;
    });
  }
}
