import { Inject, Injectable } from '@nestjs/common';
import { Clock } from '@svc/config';
import { LOGGER } from '@svc/server';
import type { Logger } from '@svc/telemetry';
import { consentRecordsError } from '../../consent-records.errors';
import { parseInboundPost } from '../inbound-webhook';
import { WEBHOOK_PATH_SECRET_PREFIX, webhookSecretDigest, type MailingAudience } from '../mailing-audience';
import { MailingAudiencesRepository } from '../mailing-audiences.repository';
import { MailingSyncWorker } from '../mailing-sync-worker';

/** What the inbound endpoint answers (always 200 once the secret is known and the body readable). */
export interface InboundReceipt {
  received: true;
  /** `queued` (an unsubscribe awaiting read-back), `ignored`, or `validated` (the tool's URL check). */
  outcome: 'queued' | 'ignored' | 'validated';
}

/**
 * The mailing tool's inbound webhook. Only `unsubscribe` can change consent, and only as a
 * withdrawal after the tool's API confirms it (queued for the sync worker's read-back). A
 * `subscribe` made in the tool is never recorded as consent; it and every other type are
 * acknowledged and logged as ignored. Each post is kept with its outcome.
 */
@Injectable()
export class ReceiveMailingWebhook {
  constructor(
    private readonly audiences: MailingAudiencesRepository,
    private readonly worker: MailingSyncWorker,
    private readonly clock: Clock,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  /** The integration a path secret belongs to; 404 for any other string. */
  async audienceOf(secret: string): Promise<MailingAudience> {
    const audience =
      secret.startsWith(WEBHOOK_PATH_SECRET_PREFIX) && secret.length <= 100
        ? await this.audiences.audienceBySecretDigest(webhookSecretDigest(secret))
        : undefined;
    if (!audience) throw consentRecordsError('mailing_webhook_not_found', 'Not found');
    return audience;
  }

  async execute(secret: string, body: unknown): Promise<InboundReceipt> {
    const audience = await this.audienceOf(secret);
    const post = parseInboundPost(body);
    if (post.kind === 'validation') return { received: true, outcome: 'validated' };
    const now = this.clock.now();
    const base = { audienceId: audience.id, type: post.type, listId: post.listId, firedAt: post.firedAt };
    const email = post.kind === 'member' ? post.email : null;
    const ignoredBecause =
      post.listId !== null && post.listId !== audience.listId
        ? 'other_list'
        : post.type === 'subscribe'
          ? 'subscribe_never_consent'
          : post.type !== 'unsubscribe'
            ? 'type_not_applied'
            : null;
    if (ignoredBecause) {
      const stored = await this.audiences.insertInbound({ ...base, email, status: 'ignored', outcome: ignoredBecause }, now);
      this.logger.info(
        { audienceId: audience.id, inbound: stored.id, type: post.type, outcome: ignoredBecause },
        'mailing inbound event ignored',
      );
      return { received: true, outcome: 'ignored' };
    }
    const stored = await this.audiences.insertInbound({ ...base, email, status: 'pending', outcome: null }, now);
    this.logger.info({ audienceId: audience.id, inbound: stored.id, type: post.type }, 'mailing unsubscribe queued for read-back');
    this.worker.kick();
    return { received: true, outcome: 'queued' };
  }
}
