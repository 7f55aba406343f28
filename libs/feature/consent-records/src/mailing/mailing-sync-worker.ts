import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { Principal } from '@svc/auth';
import { Clock, PlatformConfig } from '@svc/config';
import { KeyEncryption } from '@svc/crypto';
import { DomainError } from '@svc/errors';
import { PollingLoop } from '@svc/persistence';
import { LOGGER } from '@svc/server';
import type { Logger } from '@svc/telemetry';
import { WithdrawConsent } from '../records/use-cases/withdraw-consent.use-case';
import { MailchimpClient, callErrorText, memberReadBack, targetRefused, type CallResult, type MailchimpTarget } from './mailchimp-client';
import type { MailingAudience } from './mailing-audience';
import { MailingAudiencesRepository, type Claimed, type MailingInboundEvent, type MailingSync } from './mailing-audiences.repository';

/** Waits before attempts 2, 3, … of a call the tool could not take (5xx, 429, timeout, network). */
export const MAILING_RETRY_DELAYS_MS = [5_000, 30_000, 120_000, 600_000, 1_800_000, 3_600_000, 7_200_000] as const;
/** Attempts before a write or read-back is given up as failed (visible in its log). */
export const MAILING_MAX_ATTEMPTS = MAILING_RETRY_DELAYS_MS.length + 1;
/** How long a claimed item stays leased: longer than an item's calls can take (2 × (10 s + 15 s + 15 s)). */
const LEASE_MS = 120_000;
const POLL_MS = 500;
const CLAIM_BATCH = 20;

/** Outcome of an inbound event once read back. */
type InboundOutcome =
  | { status: 'withdrawn' | 'ignored'; outcome: string; recordId: string | null; withdrawn: string[] }
  | { status: 'failed'; outcome: string; statusCode: number | null; error: string }
  | { retry: CallResult };

/** Error codes of the withdrawal use case meaning "nothing (more) to withdraw here". */
const NOTHING_TO_WITHDRAW = new Set([
  'consent_already_withdrawn',
  'purpose_already_withdrawn',
  'purpose_not_granted',
  'purpose_not_in_record',
  'record_superseded',
  'record_not_found',
]);

/** 5xx, 429, timeouts and network errors are retried; a refused target address never is. */
function retryable(result: CallResult): boolean {
  if ('error' in result) return !targetRefused(result);
  return result.statusCode === 429 || result.statusCode >= 500;
}

function succeeded(result: CallResult): boolean {
  return !('error' in result) && result.statusCode >= 200 && result.statusCode < 300;
}

/**
 * Writes queued record events to the tool's members and reads back inbound unsubscribes before
 * they withdraw anything. The schedule lives in Postgres (read against the Clock), so it survives
 * restarts; the worker polls for due items and is woken early by new ones. The API key is
 * decrypted per item and never logged.
 */
@Injectable()
export class MailingSyncWorker implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly client = new MailchimpClient();
  private readonly loop = new PollingLoop({
    round: async () => ((await this.runOnce()) ? 'busy' : 'idle'),
    pollMs: POLL_MS,
    onError: (error) =>
      this.logger.error({ err: error instanceof Error ? error.message : String(error) }, 'mailing sync round failed; retrying'),
  });

  constructor(
    private readonly repository: MailingAudiencesRepository,
    private readonly withdrawConsent: WithdrawConsent,
    private readonly kek: KeyEncryption,
    private readonly clock: Clock,
    private readonly config: PlatformConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  onApplicationBootstrap(): void {
    this.loop.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.loop.stop();
    await this.client.close();
  }

  /** Looks for due work now (after a new item, or a test advancing its clock). */
  kick(): void {
    this.loop.kick();
  }

  /** One round: claims and handles due writes, then due inbound events. True when it found work. */
  async runOnce(): Promise<boolean> {
    const now = this.clock.now();
    const leaseUntil = new Date(now.getTime() + LEASE_MS);
    // Items of one claim run side by side, so each finishes well inside its lease; a claim never
    // holds two pending writes of one member (the later one waits for the earlier).
    const syncs = await this.repository.claimSyncs(now, leaseUntil, CLAIM_BATCH);
    await Promise.all(syncs.map((claimed) => this.guard(claimed.item.id, 'write', () => this.write(claimed))));
    const inbound = await this.repository.claimInbound(now, leaseUntil, CLAIM_BATCH);
    await Promise.all(inbound.map((claimed) => this.guard(claimed.item.id, 'read-back', () => this.readBack(claimed))));
    return syncs.length + inbound.length > 0;
  }

  private async guard(id: string, what: string, work: () => Promise<void>): Promise<void> {
    try {
      await work();
    } catch (error) {
      // The lease stays and lapses; the item is tried again then. Nothing is lost.
      this.logger.error(
        { item: id, err: error instanceof Error ? error.message : String(error) },
        `mailing ${what} not recorded; will retry`,
      );
    }
  }

  private target(audience: MailingAudience): MailchimpTarget {
    // aad = integration id: a ciphertext copied onto another integration's row does not decrypt.
    return {
      apiBaseUrl: audience.apiBaseUrl,
      apiKey: this.kek.decrypt(audience.apiKeyEnc, audience.id).toString('utf8'),
      listId: audience.listId,
      environment: audience.environment,
    };
  }

  private async write({ item, audience }: Claimed<MailingSync>): Promise<void> {
    const attempts = item.attempts + 1;
    const target = this.target(audience);
    const email = item.email ?? '';
    const anyGranted = item.permissions.some((p) => p.enabled);
    // A new member is created unsubscribed unless a mapped permission is granted; an existing member's status is never changed.
    let result = await this.client.upsertMember(target, email, item.permissions, anyGranted ? 'subscribed' : 'unsubscribed');
    if (succeeded(result) && item.tags.length > 0) result = await this.client.updateTags(target, email, item.tags);
    const now = this.clock.now();
    const statusCode = 'statusCode' in result ? result.statusCode : null;
    if (succeeded(result)) {
      await this.repository.finishSync(item.id, { status: 'written', attempts, statusCode, error: null }, now);
      this.logger.info({ audienceId: audience.id, sync: item.id, eventType: item.eventType }, 'mailing member written');
      return;
    }
    const error = callErrorText(result);
    if (retryable(result) && attempts < MAILING_MAX_ATTEMPTS) {
      await this.repository.retrySync(item.id, { attempts, statusCode, error }, this.nextAttemptAt(now, attempts, result));
      this.logger.warn({ audienceId: audience.id, sync: item.id, attempts, error }, 'mailing member write failed; will retry');
      return;
    }
    await this.repository.finishSync(item.id, { status: 'failed', attempts, statusCode, error }, now);
    this.logger.warn({ audienceId: audience.id, sync: item.id, attempts, error }, 'mailing member write failed permanently');
  }

  private async readBack({ item, audience }: Claimed<MailingInboundEvent>): Promise<void> {
    const attempts = item.attempts + 1;
    const outcome = await this.decide(item, audience);
    const now = this.clock.now();
    if ('retry' in outcome) {
      const statusCode = 'statusCode' in outcome.retry ? outcome.retry.statusCode : null;
      const error = callErrorText(outcome.retry);
      if (attempts < MAILING_MAX_ATTEMPTS) {
        await this.repository.retryInbound(item.id, { attempts, statusCode, error }, this.nextAttemptAt(now, attempts, outcome.retry));
        this.logger.warn({ audienceId: audience.id, inbound: item.id, attempts, error }, 'mailing read-back failed; will retry');
        return;
      }
      await this.repository.finishInbound(
        item.id,
        { status: 'failed', outcome: 'read_back_failed', attempts, recordId: null, withdrawnPurposes: [], statusCode, error },
        now,
      );
      this.logger.warn(
        { audienceId: audience.id, inbound: item.id, attempts, error },
        'mailing read-back failed permanently; nothing withdrawn',
      );
      return;
    }
    if (outcome.status === 'failed') {
      await this.repository.finishInbound(
        item.id,
        {
          status: 'failed',
          outcome: outcome.outcome,
          attempts,
          recordId: null,
          withdrawnPurposes: [],
          statusCode: outcome.statusCode,
          error: outcome.error,
        },
        now,
      );
      this.logger.warn({ audienceId: audience.id, inbound: item.id, error: outcome.error }, 'mailing read-back refused; nothing withdrawn');
      return;
    }
    await this.repository.finishInbound(
      item.id,
      {
        status: outcome.status,
        outcome: outcome.outcome,
        attempts,
        recordId: outcome.recordId,
        withdrawnPurposes: outcome.withdrawn,
        statusCode: 200,
        error: null,
      },
      now,
    );
    this.logger.info(
      { audienceId: audience.id, inbound: item.id, type: item.type, outcome: outcome.outcome, recordId: outcome.recordId },
      `mailing unsubscribe ${outcome.status}`,
    );
  }

  /**
   * The read-back rule: an unsubscribe withdraws only what the tool confirms. Unsubscribed in the
   * tool → the whole consent; still subscribed but a mapped permission disabled → that purpose;
   * otherwise nothing changes.
   */
  private async decide(item: MailingInboundEvent, audience: MailingAudience): Promise<InboundOutcome> {
    const email = item.email ?? '';
    const result = await this.client.getMember(this.target(audience), email);
    if (targetRefused(result))
      return { status: 'failed', outcome: 'target_address_refused', statusCode: null, error: callErrorText(result) };
    if ('error' in result || retryable(result)) return { retry: result };
    if (!succeeded(result)) {
      if (result.statusCode === 404) return { status: 'ignored', outcome: 'member_not_in_tool', recordId: null, withdrawn: [] };
      return { status: 'failed', outcome: 'read_back_refused', statusCode: result.statusCode, error: callErrorText(result) };
    }
    const member = memberReadBack(result.body);
    if (!member)
      return { status: 'failed', outcome: 'read_back_unreadable', statusCode: result.statusCode, error: 'member body without status' };
    const recordId = await this.repository.currentRecordId(audience.applicationId, audience.flowId, email);
    if (!recordId) return { status: 'ignored', outcome: 'no_consent_record', recordId: null, withdrawn: [] };
    const principal = this.principalOf(audience);
    if (member.status === 'unsubscribed') {
      const done = await this.withdraw(principal, recordId, undefined);
      return done
        ? { status: 'withdrawn', outcome: 'consent_withdrawn', recordId, withdrawn: [] }
        : { status: 'ignored', outcome: 'already_withdrawn', recordId, withdrawn: [] };
    }
    const disabled = audience.permissions.filter((p) =>
      member.permissions.some((m) => m.marketing_permission_id === p.marketing_permission_id && !m.enabled),
    );
    const withdrawn: string[] = [];
    for (const p of disabled) if (await this.withdraw(principal, recordId, p.purpose)) withdrawn.push(p.purpose);
    if (withdrawn.length > 0) return { status: 'withdrawn', outcome: 'purposes_withdrawn', recordId, withdrawn };
    return { status: 'ignored', outcome: 'read_back_still_subscribed', recordId, withdrawn: [] };
  }

  /** Withdraws through the records use case with channel mailing_tool; false when there was nothing to withdraw. */
  private async withdraw(principal: Principal, recordId: string, purpose: string | undefined): Promise<boolean> {
    try {
      await this.withdrawConsent.execute(principal, recordId, purpose, 'mailing_tool');
      return true;
    } catch (error) {
      if (error instanceof DomainError && NOTHING_TO_WITHDRAW.has(error.code)) return false;
      throw error;
    }
  }

  /** The integration acts for its application, as the application's own systems would. */
  private principalOf(audience: MailingAudience): Principal {
    return {
      kind: 'api_token',
      applicationId: audience.applicationId,
      credentialId: audience.id,
      scopes: [],
      environment: audience.environment,
      region: this.config.REGION,
      mode: 'conductor',
    };
  }

  private nextAttemptAt(now: Date, attempts: number, result: CallResult): Date {
    const delay = MAILING_RETRY_DELAYS_MS[Math.min(attempts, MAILING_RETRY_DELAYS_MS.length) - 1] ?? MAILING_RETRY_DELAYS_MS[0];
    const retryAfterMs = 'retryAfterSec' in result && result.retryAfterSec ? Math.min(result.retryAfterSec, 86_400) * 1000 : 0;
    return new Date(now.getTime() + Math.max(delay, retryAfterMs));
  }
}
