import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { Clock } from '@svc/config';
import { LOGGER } from '@svc/server';
import type { Logger } from '@svc/telemetry';
import { EscalationsRepository } from '../escalations.repository';
import { ResolveEscalation } from './resolve-escalation.use-case';

/** How often the sweep looks for escalations past their approval TTL, ms of wall time. */
export const ESCALATION_SWEEP_INTERVAL_MS = 5_000;

/**
 * How long after the approval TTL a pending escalation is left for an outcome already reached on
 * the decisions surface (whose approval session has the same deadline) to arrive over the bus.
 * Such an outcome is judged by when it was reached, so an approval given just before the deadline
 * is not lost to the sweep; direct votes are refused from the TTL on regardless.
 */
export const EXPIRY_SETTLE_MS = 60_000;

/** Escalations expired per sweep round. */
const SWEEP_BATCH = 200;

/**
 * Expires escalations whose approval TTL (Clock time) has passed without an outcome, so an
 * unanswered escalation does not stay `pending` forever.
 */
@Injectable()
export class ExpireDueEscalations implements OnApplicationBootstrap, OnApplicationShutdown {
  private timer?: NodeJS.Timeout;
  private running?: Promise<number>;

  constructor(
    private readonly escalations: EscalationsRepository,
    private readonly resolve: ResolveEscalation,
    private readonly clock: Clock,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  /** Expires every due escalation; returns how many it closed. */
  async execute(): Promise<number> {
    const cutoff = new Date(this.clock.now().getTime() - EXPIRY_SETTLE_MS);
    let closed = 0;
    for (;;) {
      const due = await this.escalations.pendingDueBy(cutoff, SWEEP_BATCH);
      for (const id of due) {
        await this.escalations.transaction(async (manager) => {
          const escalation = await this.escalations.find(id, manager, true);
          if (escalation?.status !== 'pending' || escalation.approvalTtlAt > cutoff) return;
          await this.resolve.expire(manager, escalation);
          closed += 1;
        });
      }
      if (due.length < SWEEP_BATCH) return closed;
    }
  }

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => {
      if (this.running) return;
      this.running = this.execute().finally(() => (this.running = undefined));
      this.running.catch((error: unknown) => this.logger.error({ err: error }, 'escalation expiry sweep failed'));
    }, ESCALATION_SWEEP_INTERVAL_MS);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.running?.catch(() => undefined);
  }
}
