import { Inject, Injectable } from '@nestjs/common';
import type { Principal } from '@svc/auth';
import { Clock } from '@svc/config';
import type { OutboxWriter } from '@svc/persistence';
import { OAP_OUTBOX } from '../../tokens';
import type { Authority } from '../authority';
import { AuthoritiesRepository } from '../authorities.repository';
import { transitionAuthority } from './transition-authority';

/** Resumes a suspended authority. Emits `authority.resumed`. */
@Injectable()
export class ResumeAuthority {
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
      { from: ['suspended'], to: 'active', event: 'authority.resumed' },
      reason,
    );
  }
}
