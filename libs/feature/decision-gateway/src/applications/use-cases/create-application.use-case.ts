import { Inject, Injectable } from '@nestjs/common';
import { API_TOKEN_SCOPES, apiTokenDigest } from '@svc/auth';
import { Clock, PlatformConfig } from '@svc/config';
import { DomainError } from '@svc/errors';
import { newApiToken, newId, newRegionalId } from '@svc/ids';
import type { OutboxWriter } from '@svc/persistence';
import { GATEWAY_OUTBOX } from '../../tokens';
import { APPLICATION_MODES, ENVIRONMENTS, type Application, type ApplicationMode, type Environment } from '../application';
import { ApplicationsRepository } from '../applications.repository';
import { parseBrandColor, parseLogoUrl } from '../branding';

/** A validated request to register an application; cannot be built invalid. */
export class CreateApplicationCommand {
  private constructor(
    readonly name: string,
    readonly environment: Environment,
    readonly mode: ApplicationMode,
    readonly logoUrl: string | null,
    readonly brandColor: string | null,
  ) {}

  static create(input: {
    name: unknown;
    environment: unknown;
    mode?: unknown;
    logoUrl?: unknown;
    brandColor?: unknown;
  }): CreateApplicationCommand {
    if (typeof input.name !== 'string' || input.name.trim().length === 0 || input.name.length > 200) {
      throw new DomainError('unprocessable', 'validation_failed', 'name must be 1 to 200 characters', { field: 'name' });
    }
    if (!(ENVIRONMENTS as readonly unknown[]).includes(input.environment)) {
      throw new DomainError('unprocessable', 'validation_failed', `environment must be one of ${ENVIRONMENTS.join(', ')}`, {
        field: 'environment',
      });
    }
    const mode = input.mode ?? 'conductor';
    if (!(APPLICATION_MODES as readonly unknown[]).includes(mode)) {
      throw new DomainError('unprocessable', 'validation_failed', `mode must be one of ${APPLICATION_MODES.join(', ')}`, { field: 'mode' });
    }
    for (const [field, value] of [
      ['logo_url', input.logoUrl],
      ['brand_color', input.brandColor],
    ] as const) {
      if (value !== undefined && value !== null && typeof value !== 'string')
        throw new DomainError('unprocessable', 'validation_failed', `${field} must be a string`, { field });
    }
    const logoUrl = parseLogoUrl((input.logoUrl as string | null | undefined) ?? null);
    const brandColor = parseBrandColor((input.brandColor as string | null | undefined) ?? null);
    return new CreateApplicationCommand(input.name.trim(), input.environment as Environment, mode as ApplicationMode, logoUrl, brandColor);
  }
}

export interface CreatedApplication {
  application: Application;
  /** Shown once: only its SHA-256 digest is stored. */
  apiToken: string;
  apiTokenId: string;
  publishableKey: string;
}

/** Registers an application with its first API token (all API-token scopes) and publishable key. */
@Injectable()
export class CreateApplication {
  constructor(
    private readonly applications: ApplicationsRepository,
    @Inject(GATEWAY_OUTBOX) private readonly outbox: OutboxWriter,
    private readonly clock: Clock,
    private readonly config: PlatformConfig,
  ) {}

  /**
   * `accountId`: the organisation account that owns the application (API creation; the admin CLI
   * creates applications without one). `sandboxId`: a development application's id carries the
   * `dev` segment (`tp_dev_…`, spec Identifiers) instead of the region's.
   */
  async execute(command: CreateApplicationCommand, options: { accountId?: string; sandboxId?: boolean } = {}): Promise<CreatedApplication> {
    const now = this.clock.now();
    const apiToken = newApiToken();
    const apiTokenId = newId('api_token_record');
    const publishableKey = newId(command.environment === 'production' ? 'publishable_key_live' : 'publishable_key_test');
    const application = await this.applications.transaction(async (manager) => {
      const created = await this.applications.insertApplication(
        manager,
        {
          id: newRegionalId(
            'application',
            options.sandboxId === true && command.environment === 'development' ? 'dev' : this.config.REGION,
          ),
          name: command.name,
          environment: command.environment,
          mode: command.mode,
          capabilitiesPublished: false,
          region: this.config.REGION,
          logoUrl: command.logoUrl,
          brandColor: command.brandColor,
        },
        now,
        options.accountId,
      );
      await this.applications.insertApiToken(
        manager,
        { id: apiTokenId, applicationId: created.id, digest: apiTokenDigest(apiToken), name: 'initial', scopes: API_TOKEN_SCOPES },
        now,
      );
      await this.applications.insertPublishableKey(manager, publishableKey, created.id, now);
      await this.outbox.add(
        manager,
        'application.created',
        { applicationId: created.id, name: created.name, environment: created.environment, mode: created.mode },
        { applicationId: created.id, occurredAt: now },
      );
      await this.outbox.add(
        manager,
        'application.api_token_changed',
        { applicationId: created.id, tokenId: apiTokenId, change: 'issued' },
        { applicationId: created.id, occurredAt: now },
      );
      return created;
    });
    return { application, apiToken, apiTokenId, publishableKey };
  }
}
