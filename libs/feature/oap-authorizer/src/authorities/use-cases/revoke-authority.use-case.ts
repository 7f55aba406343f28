import { Inject, Injectable } from '@nestjs/common';
import type { Principal } from '@svc/auth';
import { Clock } from '@svc/config';
import type { OutboxWriter } from '@svc/persistence';
import { OAP_OUTBOX } from '../../tokens';
import type { Authority } from '../authority';
import { AuthoritiesRepository } from '../authorities.repository';
import { transitionAuthority } from './transition-authority';

/** Revokes an authority for good; grants already issued stay valid until revoked themselves. Emits `authority.revoked`. */
@Injectable()
export class RevokeAuthority {
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
      { from: ['active', 'suspended'], to: 'revoked', event: 'authority.revoked' },
      reason,
    );
  }
}
