import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { performance } from 'node:perf_hooks';
import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { Clock, faultPoint } from '@svc/config';
import { KeyEncryption } from '@svc/crypto';
import { PollingLoop, type OutboxWriter, type PollRound } from '@svc/persistence';
import { LOGGER } from '@svc/server';
import { ROOT_CONTEXT, SpanStatusCode, type Span } from '@opentelemetry/api';
import { Metrics, SpanKind, contextWithRemoteParent, inSpan, type Logger } from '@svc/telemetry';
import { DataSource } from 'typeorm';
import { WEBHOOKS_OUTBOX } from '../tokens';
import { WebhookDispatcherConfig } from '../webhook-dispatcher.config';
import { DeliveriesRepository } from './deliveries.repository';
import type { ClaimedDelivery } from './delivery';
import { DeliveryMetrics } from './delivery-metrics';
import { OutcomeRecorder } from './outcome-recorder';
import { deliveryHeaders } from './delivery-headers';
import { WebhookSender } from './webhook-sender';

/** Largest number of deliveries one claim query leases. */
const CLAIM_BATCH = 256;
/** Subscriptions whose decrypted secrets are kept in memory; the cache is emptied when full. */
const SECRET_CACHE_SIZE = 10_000;
/** How often completed payloads past retention are purged, ms of wall time. */
const PURGE_EVERY_MS = 10 * 60_000;

/**
 * The delivery engine of one process. The schedule lives in Postgres (`next_attempt_at`, read
 * against the injected Clock), never in timers, so it survives restarts: the worker only polls for
 * due rows (and is woken early by local enqueues), leases them, sends each attempt, and hands the
 * outcome to the group-committing recorder. Several workers — in one or several processes — share
 * one database safely (see DeliveriesRepository.claimDue).
 */
@Injectable()
export class DeliveryWorker implements OnApplicationBootstrap, OnApplicationShutdown {
  /** Lease owner name: unique per process start, so a restarted process never inherits claims. */
  readonly owner = `${hostname()}:${process.pid}:${randomUUID()}`;
  private readonly sender: WebhookSender;
  private readonly recorder: OutcomeRecorder;
  private readonly metrics: DeliveryMetrics;
  private readonly loop: PollingLoop;
  private inFlight = 0;
  private lastPurge = 0;
  private readonly attempts = new Set<Promise<void>>();
  private readonly secretCache = new Map<
    string,
    { secretEnc: Buffer; previousEnc: Buffer; current: string; previous: string | undefined }
  >();
  /** Free slots that justify a new claim while attempts are in flight. */
  private readonly refillAt: number;

  constructor(
    dataSource: DataSource,
    private readonly deliveries: DeliveriesRepository,
    private readonly kek: KeyEncryption,
    private readonly clock: Clock,
    private readonly config: WebhookDispatcherConfig,
    @Inject(WEBHOOKS_OUTBOX) outbox: OutboxWriter,
    @Inject(LOGGER) private readonly logger: Logger,
    metrics: Metrics,
  ) {
    this.metrics = new DeliveryMetrics(metrics);
    this.sender = new WebhookSender({ connections: config.WEBHOOK_CONCURRENCY });
    this.refillAt = Math.max(1, Math.floor(config.WEBHOOK_CONCURRENCY / 2));
    this.recorder = new OutcomeRecorder(dataSource, deliveries, outbox, clock, this.owner);
    this.loop = new PollingLoop({
      round: () => this.claimRound(),
      pollMs: config.WEBHOOK_POLL_MS,
      onError: (error) =>
        this.logger.error({ err: error instanceof Error ? error.message : String(error) }, 'webhook claim failed; retrying'),
    });
  }

  onApplicationBootstrap(): void {
    this.loop.start();
  }

  /** Stops claiming, lets attempts in flight finish and be recorded, then closes the HTTP agent. */
  async onApplicationShutdown(): Promise<void> {
    await this.loop.stop();
    await Promise.allSettled([...this.attempts]);
    await this.recorder.idle();
    await this.sender.close();
  }

  /** Looks for due deliveries now (after a local enqueue, or a test advancing its clock). */
  kick(): void {
    this.loop.kick();
  }

  /** Claims as many due deliveries as there is room for; busy when the claim was filled. */
  private async claimRound(): Promise<PollRound> {
    const free = this.config.WEBHOOK_CONCURRENCY - this.inFlight;
    // Claim in sizeable batches: one claim query per half-window of completions, not one per completion.
    const want = this.inFlight === 0 || free >= this.refillAt ? Math.min(free, CLAIM_BATCH) : 0;
    if (want <= 0) return 'saturated';
    await this.purgeIfDue();
    const now = this.clock.now();
    const batch = await this.deliveries.claimDue(this.owner, now, new Date(now.getTime() + this.config.WEBHOOK_LEASE_SEC * 1000), want);
    for (const delivery of batch) this.start(delivery);
    return batch.length === want ? 'busy' : 'idle';
  }

  private start(delivery: ClaimedDelivery): void {
    this.inFlight += 1;
    const attempt = this.attemptInSpan(delivery)
      .catch((error: unknown) => {
        // The lease stays; the delivery is retried when it lapses. Nothing is lost.
        this.logger.error(
          { deliveryId: delivery.id, err: error instanceof Error ? error.message : String(error) },
          'webhook attempt not recorded',
        );
      })
      .finally(() => {
        this.inFlight -= 1;
        this.attempts.delete(attempt);
        if (this.config.WEBHOOK_CONCURRENCY - this.inFlight >= this.refillAt) this.kick();
      });
    this.attempts.add(attempt);
  }

  /**
   * The secrets to sign with: the current one, plus the previous one until its overlap ends.
   * Decrypted secrets are cached per subscription and checked against the envelopes just read, so a
   * rotation (new envelopes) is picked up by the very next attempt.
   */
  private secretsOf(delivery: ClaimedDelivery, now: Date): string[] {
    let cached = this.secretCache.get(delivery.subscriptionId);
    const previousEnc = delivery.previousSecretEnc ?? Buffer.alloc(0);
    if (!cached || !cached.secretEnc.equals(delivery.secretEnc) || !cached.previousEnc.equals(previousEnc)) {
      if (this.secretCache.size >= SECRET_CACHE_SIZE) this.secretCache.clear();
      cached = {
        secretEnc: delivery.secretEnc,
        previousEnc,
        current: this.kek.decrypt(delivery.secretEnc, delivery.subscriptionId).toString('utf8'),
        previous: delivery.previousSecretEnc
          ? this.kek.decrypt(delivery.previousSecretEnc, delivery.subscriptionId).toString('utf8')
          : undefined,
      };
      this.secretCache.set(delivery.subscriptionId, cached);
    }
    const overlap = cached.previous !== undefined && delivery.previousSecretExpiresAt !== null && delivery.previousSecretExpiresAt > now;
    return overlap ? [cached.current, cached.previous!] : [cached.current];
  }

  /** An attempt (the outbound call and its recording) as a client span under the delivered event's trace. */
  private attemptInSpan(delivery: ClaimedDelivery): Promise<void> {
    return inSpan(
      `webhook ${delivery.eventType} deliver`,
      {
        kind: SpanKind.CLIENT,
        parent: contextWithRemoteParent(delivery.trace, ROOT_CONTEXT),
        attributes: { 'webhook.delivery_id': delivery.id, 'webhook.event_id': delivery.eventId, 'webhook.attempt': delivery.attempts + 1 },
      },
      (span) => this.attempt(delivery, span),
    );
  }

  private async attempt(delivery: ClaimedDelivery, span?: Span): Promise<void> {
    const startedAt = this.clock.now();
    const timestamp = Math.floor(startedAt.getTime() / 1000);
    const t0 = performance.now();
    const result = await this.sender.post(
      delivery.url,
      deliveryHeaders({
        eventId: delivery.eventId,
        eventType: delivery.eventType,
        secrets: this.secretsOf(delivery, startedAt),
        timestampSec: timestamp,
        payload: delivery.payload,
        signatureFormats: delivery.signatureFormats,
      }),
      delivery.payload,
      delivery.environment,
    );
    faultPoint('webhook.after-2xx');
    const durationMs = performance.now() - t0;
    this.metrics.observe(result, durationMs);
    // The status code only: an error text may name the customer's host.
    if (result.statusCode !== undefined) span?.setAttribute('http.response.status_code', result.statusCode);
    if (result.statusCode === undefined || result.statusCode < 200 || result.statusCode >= 300)
      span?.setStatus({ code: SpanStatusCode.ERROR });
    await this.recorder.record({
      delivery,
      attemptNo: delivery.attempts + 1,
      startedAt,
      durationMs: Math.round(durationMs),
      statusCode: result.statusCode ?? null,
      error: result.error ?? null,
    });
  }

  private async purgeIfDue(): Promise<void> {
    if (Date.now() - this.lastPurge < PURGE_EVERY_MS) return;
    this.lastPurge = Date.now();
    const cutoff = new Date(this.clock.now().getTime() - this.config.WEBHOOK_PAYLOAD_RETENTION_DAYS * 86_400_000);
    await this.deliveries.purgePayloads(cutoff);
  }

  /** Runs a purge now regardless of the interval; returns the payloads dropped. */
  async purgeNow(): Promise<number> {
    this.lastPurge = Date.now();
    return this.deliveries.purgePayloads(new Date(this.clock.now().getTime() - this.config.WEBHOOK_PAYLOAD_RETENTION_DAYS * 86_400_000));
  }
}
