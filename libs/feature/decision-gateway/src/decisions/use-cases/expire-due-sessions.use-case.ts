import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { Clock } from '@svc/config';
import type { OutboxWriter } from '@svc/persistence';
import { LOGGER } from '@svc/server';
import type { Logger } from '@svc/telemetry';
import { GATEWAY_OUTBOX } from '../../tokens';
import { DecisionsRepository } from '../decisions.repository';
import { expireIfDue } from '../session-expiry';

/** How often the sweep looks for sessions past their deadline, in ms (reads also expire lazily). */
export const EXPIRY_SWEEP_INTERVAL_MS = 5_000;
/** Sessions expired per sweep round. */
const SWEEP_BATCH = 200;

/**
 * Expires open sessions whose deadline (Clock time) has passed, so signature.expired is
 * published and inboxes drop them even when nobody reads the session.
 */
@Injectable()
export class ExpireDueSessions implements OnApplicationBootstrap, OnApplicationShutdown {
  private timer?: NodeJS.Timeout;
  private running?: Promise<number>;

  constructor(
    private readonly sessions: DecisionsRepository,
    @Inject(GATEWAY_OUTBOX) private readonly outbox: OutboxWriter,
    private readonly clock: Clock,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  /** Expires every due session; returns how many it closed. */
  async execute(): Promise<number> {
    const now = this.clock.now();
    let closed = 0;
    for (;;) {
      const due = await this.sessions.dueForExpiry(now, SWEEP_BATCH);
      for (const tokenSha256 of due) {
        await this.sessions.transaction(async (manager) => {
          const session = await this.sessions.find(tokenSha256, { manager, lock: true });
          if (session && (await expireIfDue(this.sessions, this.outbox, manager, session, now)) !== session) closed += 1;
        });
      }
      if (due.length < SWEEP_BATCH) return closed;
    }
  }

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => {
      if (this.running) return;
      this.running = this.execute().finally(() => (this.running = undefined));
      this.running.catch((error: unknown) => this.logger.error({ err: error }, 'decision session expiry sweep failed'));
    }, EXPIRY_SWEEP_INTERVAL_MS);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.running?.catch(() => undefined);
  }
}
