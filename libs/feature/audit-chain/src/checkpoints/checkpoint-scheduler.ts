import type { CheckpointsRepository } from './checkpoints.repository';
import type { CreateCheckpoint } from './create-checkpoint.use-case';
import type { SubmitToWitness } from './submit-to-witness.use-case';

/** Settings of {@link CheckpointScheduler}. */
export interface CheckpointSchedulerOptions {
  /** Checkpoint interval, ms (900 000 = the spec's 15 minutes). */
  readonly intervalMs: number;
  /** How often the timer looks at the clock, ms; default min(interval, 5 000). */
  readonly pollMs?: number;
  readonly clock: { now(): Date };
  readonly onError: (error: unknown) => void;
}

/**
 * Drives checkpoints from the injected Clock: each {@link tick} makes a checkpoint when the last
 * one is at least one interval old (per the database, so several processes make one between
 * them), then sends the pending one to the witness when its retry is due. A real timer calls
 * `tick` in production; tests call it after moving a FakeClock.
 */
export class CheckpointScheduler {
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;

  constructor(
    private readonly checkpoints: CheckpointsRepository,
    private readonly create: CreateCheckpoint,
    private readonly submit: SubmitToWitness | undefined,
    private readonly options: CheckpointSchedulerOptions,
  ) {}

  start(): void {
    const poll = this.options.pollMs ?? Math.min(this.options.intervalMs, 5_000);
    this.timer = setInterval(() => {
      if (!this.running) void this.tick().catch(this.options.onError);
    }, poll);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.running?.catch(() => undefined);
  }

  /** One round: checkpoint if due, then witness submission if due. Rounds never overlap. */
  async tick(): Promise<void> {
    while (this.running) await this.running.catch(() => undefined);
    this.running = this.round();
    try {
      await this.running;
    } finally {
      this.running = undefined;
    }
  }

  private async round(): Promise<void> {
    const latest = await this.checkpoints.latest();
    const now = this.options.clock.now().getTime();
    if (!latest || now - latest.createdAt.getTime() >= this.options.intervalMs) await this.create.execute(this.options.intervalMs);
    await this.submit?.execute();
  }
}
