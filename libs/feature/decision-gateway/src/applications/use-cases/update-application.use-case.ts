import { Inject, Injectable } from '@nestjs/common';
import type { Principal } from '@svc/auth';
import { Clock } from '@svc/config';
import type { OutboxWriter } from '@svc/persistence';
import { gatewayError } from '../../gateway.errors';
import { GATEWAY_OUTBOX } from '../../tokens';
import type { Application } from '../application';
import { ApplicationsRepository, type ApplicationPatch } from '../applications.repository';
import { parseBrandColor, parseLogoUrl } from '../branding';
import { ownedApplication } from './owned-application';

/** Changes an application's name, mode, capability publication or branding (logo URL, brand colour). */
@Injectable()
export class UpdateApplication {
  constructor(
    private readonly applications: ApplicationsRepository,
    @Inject(GATEWAY_OUTBOX) private readonly outbox: OutboxWriter,
    private readonly clock: Clock,
  ) {}

  async execute(principal: Principal, applicationId: string, input: ApplicationPatch): Promise<Application> {
    await ownedApplication(this.applications, principal, applicationId);
    const patch: ApplicationPatch = {
      ...input,
      logoUrl: input.logoUrl === undefined ? undefined : parseLogoUrl(input.logoUrl),
      brandColor: input.brandColor === undefined ? undefined : parseBrandColor(input.brandColor),
    };
    const now = this.clock.now();
    return this.applications.transaction(async (manager) => {
      const updated = await this.applications.updateApplication(manager, applicationId, patch, now);
      if (!updated) throw gatewayError('application_not_found', 'Application not found', { application_id: applicationId });
      await this.outbox.add(
        manager,
        'application.updated',
        { applicationId, name: updated.name, mode: updated.mode, capabilitiesPublished: updated.capabilitiesPublished },
        { applicationId, occurredAt: now },
      );
      return updated;
    });
  }
}
