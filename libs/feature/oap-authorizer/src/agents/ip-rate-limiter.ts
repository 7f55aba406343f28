import { Injectable } from '@nestjs/common';
import { Clock } from '@svc/config';

/** Requests allowed per client IP per window on the capability endpoint (spec, Limits). */
export const CAPABILITY_RATE_LIMIT = 60;
/** Window of {@link CAPABILITY_RATE_LIMIT}, ms. */
export const CAPABILITY_RATE_WINDOW_MS = 60_000;

/**
 * Fixed-window counter per client IP, in process memory. Each replica limits independently: the
 * limit protects the process, and a client spread over N replicas gets at most N × 60/min.
 */
@Injectable()
export class IpRateLimiter {
  private readonly windows = new Map<string, { start: number; count: number }>();

  constructor(private readonly clock: Clock) {}

  /** Counts one request; returns the seconds to wait when over the limit, else undefined. */
  hit(ip: string): number | undefined {
    const now = this.clock.now().getTime();
    const window = this.windows.get(ip);
    if (!window || now - window.start >= CAPABILITY_RATE_WINDOW_MS) {
      if (this.windows.size > 100_000) this.windows.clear();
      this.windows.set(ip, { start: now, count: 1 });
      return undefined;
    }
    window.count += 1;
    if (window.count <= CAPABILITY_RATE_LIMIT) return undefined;
    return Math.max(1, Math.ceil((window.start + CAPABILITY_RATE_WINDOW_MS - now) / 1000));
  }
}
