import { outsideClaim } from './idempotency/claim-context';

/**
 * What one round found: `busy` runs the next round at once; `idle` waits for the poll interval (or a
 * kick); `saturated` claimed nothing because there is no room for more work — it waits like `idle`
 * but leaves the failure backoff as it was.
 */
export type PollRound = 'busy' | 'idle' | 'saturated';

export interface PollingLoopOptions {
  /** One round of work; a throw counts as a failed round and backs off. */
  round: () => Promise<PollRound>;
  /** Wait between rounds that found nothing, ms. */
  pollMs: number;
  /** Told of a failed round (the loop goes on, backing off up to maxBackoffMs). */
  onError: (error: unknown) => void;
  /** Longest wait after consecutive failed rounds, ms (doubling from 200 ms). */
  maxBackoffMs?: number;
}

/**
 * A background worker's loop: runs rounds while started, again at once after a busy round, after
 * `pollMs` after an idle one, with a doubling backoff after failures; `kick()` wakes it early (new
 * work, or a test advancing its clock). `stop()` ends it after the current round.
 */
export class PollingLoop {
  private running = false;
  private loop?: Promise<void>;
  private wake?: () => void;
  private woken = false;

  constructor(private readonly options: PollingLoopOptions) {}

  start(): void {
    if (this.running) return;
    this.running = true;
    // A loop outlives whatever started it: its rounds are never a request's own transactions.
    this.loop = outsideClaim(() => this.run());
  }

  /** Looks for work now: interrupts the wait, or runs another round at once if one is under way. */
  kick(): void {
    this.woken = true;
    this.wake?.();
  }

  /** Stops after the current round and resolves when the loop has ended. */
  async stop(): Promise<void> {
    this.running = false;
    this.kick();
    await this.loop;
  }

  private async run(): Promise<void> {
    const maxBackoffMs = this.options.maxBackoffMs ?? 5_000;
    let failures = 0;
    while (this.running) {
      this.woken = false;
      let found: PollRound = 'idle';
      try {
        found = await this.options.round();
        if (found !== 'saturated') failures = 0;
      } catch (error) {
        failures += 1;
        this.options.onError(error);
      }
      if (!this.running) break;
      if ((found === 'busy' && failures === 0) || this.woken) continue;
      const wait = failures > 0 ? Math.min(maxBackoffMs, 100 * 2 ** failures) : this.options.pollMs;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, wait);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = undefined;
    }
  }
}
