import { Inject, Injectable } from '@nestjs/common';
import type { Principal } from '@svc/auth';
import { Clock } from '@svc/config';
import type { OutboxWriter } from '@svc/persistence';
import { accountsError } from '../../accounts/accounts.errors';
import { GATEWAY_OUTBOX } from '../../tokens';
import { ApplicationsRepository } from '../applications.repository';
import { ownedApplication } from './owned-application';

/**
 * Resets a development (sandbox) application's data: decision-gateway deletes its consent
 * sessions (with their votes and consent tokens), principal assertions and activity in the same
 * transaction that writes `application.sandbox_reset`; consent-records deletes the application's
 * records, captures, imports and directory entries created before `reset_at` when the event
 * arrives. Settings, credentials, origins, flows, OAuth clients and webhook subscriptions stay.
 * A production application is never reset (409 `sandbox_reset_production`).
 */
@Injectable()
export class ResetSandbox {
  constructor(
    private readonly applications: ApplicationsRepository,
    @Inject(GATEWAY_OUTBOX) private readonly outbox: OutboxWriter,
    private readonly clock: Clock,
  ) {}

  async execute(principal: Principal, applicationId: string): Promise<{ applicationId: string; resetAt: Date; sessionsDeleted: number }> {
    const app = await ownedApplication(this.applications, principal, applicationId);
    if (app.environment !== 'development') {
      throw accountsError('sandbox_reset_production', 'Only a development (sandbox) application can be reset', {
        application_id: app.id,
        environment: app.environment,
      });
    }
    const now = this.clock.now();
    return this.applications.transaction(async (manager) => {
      const sessionsDeleted = await this.applications.deleteSandboxSessions(manager, app.id, now);
      await this.outbox.add(
        manager,
        'application.sandbox_reset',
        { applicationId: app.id, resetAt: now.toISOString() },
        { applicationId: app.id, occurredAt: now },
      );
      return { applicationId: app.id, resetAt: now, sessionsDeleted };
    });
  }
}
