import { Injectable } from '@nestjs/common';
import { Clock } from '@svc/config';
import { peopleError } from './people.errors';
import { PeopleRepository } from './people.repository';
import { sha256Hex } from './person';

/** Window of the throttles and of the aggregated failure events. */
export const THROTTLE_WINDOW_SECONDS = 900;
/** How long a key stays locked once it passes its limit. */
export const LOCKOUT_SECONDS = 900;

/** Limits per window: code emails per address and per client, wrong answers per account and per client. */
export const LIMITS = {
  sendPerAccount: 5,
  sendPerIp: 20,
  failuresPerAccount: 10,
  failuresPerIp: 30,
} as const;

/**
 * Rate limits and lockout of sign-in: per client address and per account (email), counted in
 * Postgres so every process of the region shares them. Keys are digests; no address is stored.
 * Failures are also counted into the current window's aggregate, reported later as one audit event.
 */
@Injectable()
export class SignInThrottle {
  constructor(
    private readonly people: PeopleRepository,
    private readonly clock: Clock,
  ) {}

  /** Refuses (429 with Retry-After) when the client or the account is locked out. */
  async assertNotLocked(ip: string, email: string | null): Promise<void> {
    const now = this.clock.now();
    const seconds = Math.max(
      await this.people.lockedFor(failKey('ip', ip), now),
      email ? await this.people.lockedFor(failKey('acct', email), now) : 0,
    );
    if (seconds > 0) throw limited(seconds);
  }

  /** Counts one code email; refuses when the address or the client asked for too many. */
  async countSend(ip: string, email: string): Promise<void> {
    await this.assertNotLocked(ip, email);
    const now = this.clock.now();
    const seconds = Math.max(
      await this.people.hit(`send:ip:${sha256Hex(ip)}`, now, THROTTLE_WINDOW_SECONDS, LIMITS.sendPerIp, LOCKOUT_SECONDS),
      await this.people.hit(`send:acct:${sha256Hex(email)}`, now, THROTTLE_WINDOW_SECONDS, LIMITS.sendPerAccount, LOCKOUT_SECONDS),
    );
    if (seconds > 0) {
      await this.recordFailure('email_code', 'rate_limited');
      throw limited(seconds);
    }
  }

  /** Counts one failed proof against the client and the account; the lockout applies from the next try. */
  async countFailure(ip: string, email: string | null, method: 'email_code' | 'passkey', reason: string): Promise<void> {
    const now = this.clock.now();
    await this.people.hit(failKey('ip', ip), now, THROTTLE_WINDOW_SECONDS, LIMITS.failuresPerIp, LOCKOUT_SECONDS);
    if (email) await this.people.hit(failKey('acct', email), now, THROTTLE_WINDOW_SECONDS, LIMITS.failuresPerAccount, LOCKOUT_SECONDS);
    await this.recordFailure(method, reason);
  }

  /** A successful sign-in clears the account's failure count. */
  async clearAccount(email: string): Promise<void> {
    await this.people.clearThrottle(failKey('acct', email));
  }

  private async recordFailure(method: string, reason: string): Promise<void> {
    const now = this.clock.now().getTime();
    const windowStart = new Date(now - (now % (THROTTLE_WINDOW_SECONDS * 1000)));
    await this.people.countFailure(windowStart, method, reason);
  }
}

function failKey(kind: 'ip' | 'acct', value: string): string {
  return `fail:${kind}:${sha256Hex(value)}`;
}

function limited(seconds: number) {
  return peopleError(
    'sign_in_rate_limited',
    'Too many sign-in attempts; retry later',
    { retry_after_seconds: seconds },
    { 'retry-after': String(seconds) },
  );
}
