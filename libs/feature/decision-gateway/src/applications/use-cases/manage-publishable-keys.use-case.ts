import { Inject, Injectable } from '@nestjs/common';
import type { Principal } from '@svc/auth';
import { Clock } from '@svc/config';
import { newId } from '@svc/ids';
import type { OutboxWriter } from '@svc/persistence';
import { accountsError } from '../../accounts/accounts.errors';
import { GATEWAY_OUTBOX } from '../../tokens';
import { ApplicationsRepository } from '../applications.repository';
import { ownedApplication } from './owned-application';

export interface PublishableKeyRecord {
  key: string;
  createdAt: Date;
  revokedAt: Date | null;
}

/**
 * Publishable keys of an application: `pk_test_…` for a development (sandbox) application,
 * `pk_live_…` for production, so a key names its environment. Issuing one adds a key (the
 * newest is the current one); revoking one stops it within the credential cache's 5 s, or at
 * once where the revocation event arrives. The last active key cannot be revoked.
 */
@Injectable()
export class ManagePublishableKeys {
  constructor(
    private readonly applications: ApplicationsRepository,
    @Inject(GATEWAY_OUTBOX) private readonly outbox: OutboxWriter,
    private readonly clock: Clock,
  ) {}

  async issue(principal: Principal, applicationId: string): Promise<PublishableKeyRecord> {
    const app = await ownedApplication(this.applications, principal, applicationId);
    const key = newId(app.environment === 'production' ? 'publishable_key_live' : 'publishable_key_test');
    const now = this.clock.now();
    await this.applications.transaction((manager) => this.applications.insertPublishableKey(manager, key, app.id, now));
    return { key, createdAt: now, revokedAt: null };
  }

  async revoke(principal: Principal, applicationId: string, key: string): Promise<PublishableKeyRecord> {
    const app = await ownedApplication(this.applications, principal, applicationId);
    const now = this.clock.now();
    return this.applications.transaction(async (manager) => {
      const active = await this.applications.countActivePublishableKeys(manager, app.id);
      const revoked = await this.applications.revokePublishableKey(manager, app.id, key, now);
      if (!revoked) throw accountsError('publishable_key_not_found', 'Publishable key not found', { publishable_key: key });
      if (active <= 1 && revoked.revokedAt?.getTime() === now.getTime()) {
        throw accountsError('last_publishable_key', 'Issue another publishable key before revoking the last one', { publishable_key: key });
      }
      // The credential caches evict by credential id, which for a publishable key is the key itself.
      await this.outbox.add(
        manager,
        'application.api_token_changed',
        { applicationId: app.id, tokenId: key, change: 'revoked' },
        { applicationId: app.id, occurredAt: now },
      );
      return revoked;
    });
  }
}
