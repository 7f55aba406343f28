import { Inject, Injectable } from '@nestjs/common';
import { API_TOKEN_SCOPES, apiTokenDigest, type Principal } from '@svc/auth';
import { Clock } from '@svc/config';
import { newApiToken, newId } from '@svc/ids';
import type { OutboxWriter } from '@svc/persistence';
import { gatewayError } from '../../gateway.errors';
import { GATEWAY_OUTBOX } from '../../tokens';
import { ComplyService } from '../../comply/comply.service';
import { ApplicationsRepository, type ApiTokenRecord } from '../applications.repository';
import { ownedApplication } from './owned-application';

/** Issues an additional API token; the token is returned once and stored only as its digest. */
@Injectable()
export class IssueApiToken {
  constructor(
    private readonly applications: ApplicationsRepository,
    @Inject(GATEWAY_OUTBOX) private readonly outbox: OutboxWriter,
    private readonly clock: Clock,
    private readonly comply: ComplyService,
  ) {}

  async execute(
    principal: Principal,
    applicationId: string,
    name: string,
    scopes: readonly string[] = API_TOKEN_SCOPES,
  ): Promise<{ token: string; record: ApiTokenRecord }> {
    await ownedApplication(this.applications, principal, applicationId);
    // Governance: the rotate_keys role, and a second approver when four-eyes applies.
    await this.comply.authorizeKeyRotation(principal);
    const now = this.clock.now();
    const token = newApiToken();
    const id = newId('api_token_record');
    await this.applications.transaction(async (manager) => {
      await this.applications.insertApiToken(manager, { id, applicationId, digest: apiTokenDigest(token), name, scopes }, now);
      await this.outbox.add(
        manager,
        'application.api_token_changed',
        { applicationId, tokenId: id, change: 'issued' },
        { applicationId, occurredAt: now },
      );
    });
    return { token, record: { id, applicationId, name, scopes: [...scopes], createdAt: now, revokedAt: null } };
  }
}

/** Revokes an API token at once; the last active token of an application cannot be revoked. */
@Injectable()
export class RevokeApiToken {
  constructor(
    private readonly applications: ApplicationsRepository,
    @Inject(GATEWAY_OUTBOX) private readonly outbox: OutboxWriter,
    private readonly clock: Clock,
    private readonly comply: ComplyService,
  ) {}

  async execute(principal: Principal, applicationId: string, tokenId: string): Promise<ApiTokenRecord> {
    await ownedApplication(this.applications, principal, applicationId);
    // Governance: the rotate_keys role, and a second approver when four-eyes applies.
    await this.comply.authorizeKeyRotation(principal);
    const now = this.clock.now();
    return this.applications.transaction(async (manager) => {
      const active = await this.applications.countActiveApiTokens(manager, applicationId);
      const revoked = await this.applications.revokeApiToken(manager, applicationId, tokenId, now);
      if (!revoked) throw gatewayError('api_token_not_found', 'API token not found', { api_token_id: tokenId });
      if (active <= 1 && revoked.revokedAt?.getTime() === now.getTime()) {
        throw gatewayError('last_api_token', 'Issue another API token before revoking the last one', { api_token_id: tokenId });
      }
      await this.outbox.add(
        manager,
        'application.api_token_changed',
        { applicationId, tokenId, change: 'revoked' },
        { applicationId, occurredAt: now },
      );
      return revoked;
    });
  }
}
