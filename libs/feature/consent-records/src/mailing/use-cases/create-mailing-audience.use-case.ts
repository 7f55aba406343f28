import { Injectable } from '@nestjs/common';
import type { Principal } from '@svc/auth';
import { Clock, PlatformConfig } from '@svc/config';
import { KeyEncryption } from '@svc/crypto';
import { isIdOf, type IdRegion } from '@svc/ids';
import { consentRecordsError } from '../../consent-records.errors';
import { FlowsRepository } from '../../flows/flows.repository';
import {
  checkApiBaseUrl,
  checkApiBaseUrlTarget,
  newMailingAudienceId,
  newWebhookPathSecret,
  webhookSecretDigest,
  type MailingAudience,
} from '../mailing-audience';
import { AudienceFlows } from '../audience-flows';
import { MailingAudiencesRepository } from '../mailing-audiences.repository';
import type { CreateMailingAudienceBody } from '../mailing-audiences.dto';

/** Integrations one application may hold. */
export const MAX_MAILING_AUDIENCES = 20;

/**
 * Creates a mailing-audience integration bound to one of the caller's active flows. The API key is
 * stored encrypted (bound to the integration id); the inbound webhook path secret is returned here
 * once and stored only as a digest.
 */
@Injectable()
export class CreateMailingAudience {
  constructor(
    private readonly audiences: MailingAudiencesRepository,
    private readonly audienceFlows: AudienceFlows,
    private readonly flows: FlowsRepository,
    private readonly kek: KeyEncryption,
    private readonly clock: Clock,
    private readonly config: PlatformConfig,
  ) {}

  async execute(principal: Principal, body: CreateMailingAudienceBody): Promise<{ audience: MailingAudience; webhookSecret: string }> {
    const apiBaseUrl = checkApiBaseUrl(body.api_base_url, principal.environment);
    await checkApiBaseUrlTarget(apiBaseUrl, principal.environment);
    const latest = isIdOf('flow', body.flow_id) ? await this.flows.find(principal.applicationId, body.flow_id) : undefined;
    if (!latest) throw consentRecordsError('flow_not_found', 'Flow not found', { flow_id: body.flow_id });
    if (latest.activeVersion === null)
      throw consentRecordsError('flow_not_active', 'The flow is a draft; activate it before connecting a mailing audience', {
        flow_id: body.flow_id,
      });
    const active =
      latest.version === latest.activeVersion ? latest : await this.flows.find(principal.applicationId, body.flow_id, latest.activeVersion);
    const known = new Set(active?.terms.purposes.map((p) => p.key) ?? []);
    const tags = (body.tags ?? []).map((t) => ({
      purpose: t.purpose,
      granted: [...new Set(t.granted ?? [])],
      declined: [...new Set(t.declined ?? [])],
    }));
    for (const purpose of [...body.permissions.map((p) => p.purpose), ...tags.map((t) => t.purpose)]) {
      if (!known.has(purpose))
        throw consentRecordsError('purpose_not_in_flow', `purpose "${purpose}" is not part of the flow`, { purpose, field: 'permissions' });
    }
    if (
      new Set(body.permissions.map((p) => p.purpose)).size !== body.permissions.length ||
      new Set(tags.map((t) => t.purpose)).size !== tags.length
    ) {
      throw consentRecordsError('mailing_mapping_duplicate', 'A purpose is mapped twice', { field: 'permissions' });
    }
    const id = newMailingAudienceId(this.config.REGION as IdRegion);
    const webhookSecret = newWebhookPathSecret();
    const audience: MailingAudience = {
      id,
      applicationId: principal.applicationId,
      environment: principal.environment,
      provider: body.provider,
      apiBaseUrl,
      apiKeyEnc: this.kek.encrypt(Buffer.from(body.api_key, 'utf8'), id),
      listId: body.list_id,
      flowId: body.flow_id,
      permissions: body.permissions.map((p) => ({ purpose: p.purpose, marketing_permission_id: p.marketing_permission_id })),
      tags,
      webhookSecretDigest: webhookSecretDigest(webhookSecret),
      createdAt: this.clock.now(),
    };
    // This process's answer for the application is renewed at this commit.
    await this.audienceFlows.change(principal.applicationId, () =>
      this.audiences.transaction(async (manager) => {
        await this.audiences.lockApplication(manager, principal.applicationId);
        if ((await this.audiences.countForApplication(manager, principal.applicationId)) >= MAX_MAILING_AUDIENCES) {
          throw consentRecordsError('mailing_audience_limit_reached', 'The application has the maximum number of mailing audiences', {
            limit: MAX_MAILING_AUDIENCES,
          });
        }
        if (!(await this.audiences.insertAudience(manager, audience))) {
          throw consentRecordsError('mailing_audience_exists', 'This flow is already connected to this audience', {
            flow_id: body.flow_id,
            list_id: body.list_id,
          });
        }
      }),
    );
    // Other processes may still skip the flow's events on an answer read before the commit: answer
    // once those have expired, so every record written after this answer reaches the audience.
    await this.audienceFlows.settled(performance.now());
    return { audience, webhookSecret };
  }
}
