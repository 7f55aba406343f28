import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { Clock } from '@svc/config';
import { KeyEncryption } from '@svc/crypto';
import { EgressClient } from '@svc/egress';
import { PollingLoop, type PollRound } from '@svc/persistence';
import { LOGGER } from '@svc/server';
import type { Logger } from '@svc/telemetry';
import { retryWaitMs, verdictOf } from '../deliveries/retry-schedule';
import { CONNECT_TIMEOUT_MS, READ_TIMEOUT_MS } from '../deliveries/webhook-sender';
import { WebhookDispatcherConfig } from '../webhook-dispatcher.config';
import { SetDeliveriesRepository, type ClaimedSetDelivery } from './set-deliveries.repository';

/** Deliveries one claim leases. */
const CLAIM_BATCH = 64;
/** Attempts in flight per process. */
const CONCURRENCY = 64;

/**
 * Pushes SETs (RFC 8935): `POST` of the compact JWS as `application/secevent+jwt` to the stream's
 * endpoint, with the `Authorization` header the receiver configured, through the egress policy
 * (the guarded client connects only to addresses the application's environment may reach, checked
 * at every connection, so DNS rebinding cannot reach an internal address). A 2xx (the RFC's 202)
 * acknowledges; a 4xx (the RFC's 400 with `err`) is permanent; anything else is retried on the
 * webhook schedule (30 s, 2 min, 15 min, 1 h; 5 attempts).
 */
@Injectable()
export class SetDeliveryWorker implements OnApplicationBootstrap, OnApplicationShutdown {
  readonly owner = `${hostname()}:${process.pid}:ssf:${randomUUID()}`;
  private readonly client = new EgressClient({
    maxResponseBytes: 16 * 1024,
    responseBody: 'discard',
    connectTimeoutMs: CONNECT_TIMEOUT_MS,
    readTimeoutMs: READ_TIMEOUT_MS,
    connections: CONCURRENCY,
  });
  private readonly loop: PollingLoop;
  private readonly attempts = new Set<Promise<void>>();

  constructor(
    private readonly deliveries: SetDeliveriesRepository,
    private readonly kek: KeyEncryption,
    private readonly clock: Clock,
    private readonly config: WebhookDispatcherConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    this.loop = new PollingLoop({
      round: () => this.claimRound(),
      pollMs: config.WEBHOOK_POLL_MS,
      onError: (error) =>
        this.logger.error({ err: error instanceof Error ? error.message : String(error) }, 'security event claim failed; retrying'),
    });
  }

  onApplicationBootstrap(): void {
    this.loop.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.loop.stop();
    await Promise.allSettled([...this.attempts]);
    await this.client.close();
  }

  /** Looks for due deliveries now (after a local enqueue or a stream enabled again). */
  kick(): void {
    this.loop.kick();
  }

  private async claimRound(): Promise<PollRound> {
    const free = CONCURRENCY - this.attempts.size;
    if (free <= 0) return 'saturated';
    const now = this.clock.now();
    const want = Math.min(free, CLAIM_BATCH);
    const batch = await this.deliveries.claimDue(this.owner, now, new Date(now.getTime() + this.config.WEBHOOK_LEASE_SEC * 1000), want);
    for (const delivery of batch) {
      const attempt = this.attempt(delivery)
        .catch((error: unknown) => {
          // The lease stays; the delivery is retried when it lapses.
          this.logger.error(
            { deliveryId: delivery.id, err: error instanceof Error ? error.message : String(error) },
            'security event attempt not recorded',
          );
        })
        .finally(() => {
          this.attempts.delete(attempt);
          this.kick();
        });
      this.attempts.add(attempt);
    }
    return batch.length === want ? 'busy' : 'idle';
  }

  private async attempt(delivery: ClaimedSetDelivery): Promise<void> {
    const headers: Record<string, string> = { 'content-type': 'application/secevent+jwt', accept: 'application/json' };
    // aad = stream id: a ciphertext copied onto another stream's row does not decrypt.
    if (delivery.authorizationHeaderEnc)
      headers.authorization = this.kek.decrypt(delivery.authorizationHeaderEnc, delivery.streamId).toString('utf8');
    const result = await this.client.send({
      method: 'POST',
      url: delivery.endpointUrl,
      headers,
      body: delivery.setJwt,
      environment: delivery.environment,
    });
    const attemptResult = 'error' in result ? { error: result.error } : { statusCode: result.statusCode };
    const attemptNo = delivery.attempts + 1;
    const verdict = verdictOf(attemptResult, attemptNo, delivery.maxAttempts);
    const now = this.clock.now();
    const status = verdict === 'succeeded' ? 'succeeded' : verdict === 'retry' ? 'pending' : 'failed';
    if (status === 'failed')
      this.logger.warn(
        { deliveryId: delivery.id, streamId: delivery.streamId, attempt: attemptNo, statusCode: attemptResult.statusCode ?? null },
        'security event delivery failed for good',
      );
    await this.deliveries.record(this.owner, delivery.id, {
      status,
      statusCode: attemptResult.statusCode ?? null,
      // The error text only: it never carries the SET or the receiver's credential.
      error: attemptResult.error ?? null,
      nextAttemptAt: verdict === 'retry' ? new Date(now.getTime() + retryWaitMs(attemptNo)) : null,
      now,
    });
  }
}
