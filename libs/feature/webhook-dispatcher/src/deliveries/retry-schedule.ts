import { isRefusedTargetError, REFUSED_TARGET_ERROR } from '@svc/egress';

/** Attempts a delivery gets in all (spec, Limits: 5 attempts). */
export const MAX_ATTEMPTS = 5;

/** Waits before attempts 2–5, ms (spec, Limits: 30 s, 2 min, 15 min, 1 h). */
export const RETRY_WAITS_MS: readonly number[] = [30_000, 2 * 60_000, 15 * 60_000, 60 * 60_000];

/** Consecutive failed deliveries that disable a subscription (spec, Limits). */
export const AUTO_DISABLE_AFTER = 5;

/** Error text prefix of an attempt whose target address the subscription may not reach (permanent). */
export { REFUSED_TARGET_ERROR };

/** What one HTTP attempt produced: a status code, or an error before any status arrived. */
export type AttemptResult = { statusCode: number; error?: undefined } | { statusCode?: undefined; error: string };

/**
 * How an attempt ends its delivery (spec, Events → Webhooks delivery rules):
 * - `succeeded`: any 2xx acknowledges.
 * - `rejected`: any 4xx is permanent, never retried (410 Gone also disables the subscription);
 *   so is a target address the subscription may not reach.
 * - `retry`: 5xx, timeout, network error — and 1xx/3xx, which we never follow: a redirect is a
 *   misconfiguration the owner can fix within the retry window — while attempts remain.
 * - `exhausted`: a retryable failure on the last attempt.
 */
export type AttemptVerdict = 'succeeded' | 'rejected' | 'retry' | 'exhausted';

/** Classifies attempt `attemptNo` (1-based) of a delivery allowed `maxAttempts`. */
export function verdictOf(result: AttemptResult, attemptNo: number, maxAttempts: number = MAX_ATTEMPTS): AttemptVerdict {
  const code = result.statusCode;
  // Stryker disable next-line ConditionalExpression: with no status every comparison below is false anyway
  if (code !== undefined) {
    if (code >= 200 && code < 300) return 'succeeded';
    if (code >= 400 && code < 500) return 'rejected';
  }
  if (isRefusedTargetError(result.error)) return 'rejected';
  return attemptNo >= maxAttempts ? 'exhausted' : 'retry';
}

/** Wait after failed attempt `attemptNo` (1-based) before the next one, ms. */
export function retryWaitMs(attemptNo: number): number {
  const wait = RETRY_WAITS_MS[Math.min(attemptNo, RETRY_WAITS_MS.length) - 1];
  if (wait === undefined) throw new RangeError(`no retry wait after attempt ${attemptNo}`);
  return wait;
}
