import { defineErrors } from '@svc/errors';

/**
 * Reason codes of the platform's `Idempotency-Key` handling. Each names the header in
 * `detail.field`, so a client knows which input to change.
 */
export const idempotencyError = defineErrors({
  /** The header is not 1–255 visible ASCII characters (or was sent more than once). */
  idempotency_key_invalid: 'invalid',
  /** The key was used by the same caller for another request (another body, method or path). */
  idempotency_key_reused: 'unprocessable',
  /** A request with this key is still being processed; retry after `Retry-After` seconds. */
  idempotency_key_in_progress: 'conflict',
  /**
   * The request with this key was applied (its change committed) but its answer was lost when the
   * server stopped: it is never run again; read the resource instead. Final, no `Retry-After`.
   */
  idempotency_key_answer_lost: 'conflict',
});

export type IdempotencyErrorCode = (typeof idempotencyError.codes)[number];
