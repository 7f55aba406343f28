import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { Clock } from '@svc/config';
import { LOGGER } from '@svc/server';
import type { Logger } from '@svc/telemetry';
import { CapturesRepository } from '../captures.repository';

/** How often uncommitted captures past their 24 h are deleted, in ms. */
export const CAPTURE_SWEEP_INTERVAL_MS = 60_000;

/** Deletes expired uncommitted captures (Clock time), so they leave nothing behind. */
@Injectable()
export class SweepExpiredCaptures implements OnApplicationBootstrap, OnApplicationShutdown {
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly captures: CapturesRepository,
    private readonly clock: Clock,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  /** One sweep; returns how many captures it deleted. */
  execute(): Promise<number> {
    return this.captures.deleteExpired(this.clock.now());
  }

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => {
      this.execute().catch((error: unknown) => this.logger.error({ err: error }, 'capture sweep failed'));
    }, CAPTURE_SWEEP_INTERVAL_MS);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    if (this.timer) clearInterval(this.timer);
  }
}
