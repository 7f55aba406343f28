import { Inject, Injectable } from '@nestjs/common';
import type { Principal } from '@svc/auth';
import { Clock } from '@svc/config';
import type { OutboxWriter } from '@svc/persistence';
import { OAP_OUTBOX } from '../../tokens';
import type { Authority } from '../authority';
import { AuthoritiesRepository } from '../authorities.repository';
import { transitionAuthority } from './transition-authority';

/** Suspends an active authority: grant requests under it are denied at step 3 until resumed. Emits `authority.suspended`. */
@Injectable()
export class SuspendAuthority {
  constructor(
    private readonly authorities: AuthoritiesRepository,
    @Inject(OAP_OUTBOX) private readonly outbox: OutboxWriter,
    private readonly clock: Clock,
  ) {}

  execute(principal: Principal, authorityId: string, reason = ''): Promise<Authority> {
    return transitionAuthority(
      { authorities: this.authorities, outbox: this.outbox, clock: this.clock },
      principal,
      authorityId,
      { from: ['active'], to: 'suspended', event: 'authority.suspended' },
      reason,
    );
  }
}
