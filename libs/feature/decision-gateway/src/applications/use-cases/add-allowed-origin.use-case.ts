import { Inject, Injectable } from '@nestjs/common';
import type { Principal } from '@svc/auth';
import { Clock } from '@svc/config';
import type { OutboxWriter } from '@svc/persistence';
import { GATEWAY_OUTBOX } from '../../tokens';
import { ApplicationsRepository } from '../applications.repository';
import { canonicalOrigin } from '../origin';
import { ownedApplication } from './owned-application';

/** Registers an allowed origin; adding one already present is an idempotent success. */
@Injectable()
export class AddAllowedOrigin {
  constructor(
    private readonly applications: ApplicationsRepository,
    @Inject(GATEWAY_OUTBOX) private readonly outbox: OutboxWriter,
    private readonly clock: Clock,
  ) {}

  async execute(
    principal: Principal,
    applicationId: string,
    origin: string,
  ): Promise<{ origin: string; createdAt: Date; created: boolean }> {
    const app = await ownedApplication(this.applications, principal, applicationId);
    const canonical = canonicalOrigin(origin, app.environment);
    const now = this.clock.now();
    return this.applications.transaction(async (manager) => {
      const result = await this.applications.addOrigin(manager, app.id, canonical, now);
      if (result.created) {
        await this.outbox.add(
          manager,
          'application.allowed_origin_added',
          { applicationId: app.id, origin: canonical },
          { applicationId: app.id, occurredAt: now },
        );
      }
      return { origin: canonical, ...result };
    });
  }
}
