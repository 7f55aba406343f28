import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { Clock } from '@svc/config';
import { PollingLoop, type OutboxWriter } from '@svc/persistence';
import { LOGGER } from '@svc/server';
import type { Logger } from '@svc/telemetry';
import { GATEWAY_OUTBOX } from '../tokens';
import { PeopleRepository } from './people.repository';
import { THROTTLE_WINDOW_SECONDS } from './sign-in-throttle';

/**
 * Turns each closed window of sign-in failures into one `person.sign_in_failures` event per
 * method and reason (counts only: no address, code or person), written to the outbox in the
 * transaction that marks the window reported, so audit-chain records failures without one entry
 * per try.
 */
@Injectable()
export class SignInFailureReports implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly loop = new PollingLoop({
    round: () => this.reportClosedWindows(),
    pollMs: 60_000,
    onError: (error) =>
      this.logger.error({ err: error instanceof Error ? error.message : String(error) }, 'sign-in failure report failed; retrying'),
  });

  constructor(
    private readonly people: PeopleRepository,
    private readonly clock: Clock,
    @Inject(GATEWAY_OUTBOX) private readonly outbox: OutboxWriter,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  onApplicationBootstrap(): void {
    this.loop.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.loop.stop();
  }

  /** Reports every window that ended before now; `busy` when a full batch was reported. */
  async reportClosedWindows(): Promise<'busy' | 'idle'> {
    const now = this.clock.now().getTime();
    const currentWindow = new Date(now - (now % (THROTTLE_WINDOW_SECONDS * 1000)));
    const reported = await this.people.transaction(async (manager) => {
      const windows = await this.people.claimClosedFailureWindows(manager, currentWindow);
      for (const w of windows) {
        await this.outbox.add(
          manager,
          'person.sign_in_failures',
          {
            windowStartedAt: w.windowStartedAt.toISOString(),
            windowSeconds: THROTTLE_WINDOW_SECONDS,
            method: w.method,
            reason: w.reason,
            failures: w.failures,
          },
          { occurredAt: new Date(w.windowStartedAt.getTime() + THROTTLE_WINDOW_SECONDS * 1000) },
        );
      }
      return windows.length;
    });
    return reported >= 100 ? 'busy' : 'idle';
  }
}
