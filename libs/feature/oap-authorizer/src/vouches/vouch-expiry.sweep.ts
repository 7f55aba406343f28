import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { Clock } from '@svc/config';
import { LOGGER } from '@svc/server';
import type { Logger } from '@svc/telemetry';
import { TrustScores } from './trust-scores';
import { VouchesRepository } from './vouches.repository';

/** How often expired vouches are looked for, ms of wall time. */
export const VOUCH_EXPIRY_SWEEP_INTERVAL_MS = 5_000;
const SWEEP_BATCH = 200;

/**
 * Applies vouch expiries to step 9's snapshot: a vouch past `expires_at` stops counting in the
 * score at once for readers of `/api/v1/trust_scores`, and within one sweep interval for the
 * cascade, which reads the agent's stored snapshot.
 */
@Injectable()
export class VouchExpirySweep implements OnApplicationBootstrap, OnApplicationShutdown {
  private timer?: NodeJS.Timeout;
  private running?: Promise<number>;

  constructor(
    private readonly vouches: VouchesRepository,
    private readonly scores: TrustScores,
    private readonly clock: Clock,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  /** Applies every due expiry; returns how many vouches it applied. */
  async execute(): Promise<number> {
    let applied = 0;
    for (;;) {
      const now = this.clock.now();
      const count = await this.vouches.transaction(async (manager) => {
        const expired = await this.vouches.claimExpired(manager, now, SWEEP_BATCH);
        for (const subject of new Set(expired.map((vouch) => vouch.subjectId))) await this.scores.refresh(manager, subject, now);
        return expired.length;
      });
      applied += count;
      if (count < SWEEP_BATCH) return applied;
    }
  }

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => {
      if (this.running) return;
      this.running = this.execute().finally(() => (this.running = undefined));
      this.running.catch((error: unknown) => this.logger.error({ err: error }, 'vouch expiry sweep failed'));
    }, VOUCH_EXPIRY_SWEEP_INTERVAL_MS);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.running?.catch(() => undefined);
  }
}
