/** Why a webhook request did not verify; stable strings a receiver may branch on or log. */
export type WebhookVerificationReason =
  /** `X-Svc-Signature` absent, empty, or with no `v1=` entry. */
  | 'signature_missing'
  /** `X-Svc-Timestamp` absent or not a Unix epoch in seconds. */
  | 'timestamp_invalid'
  /** The timestamp is older (or further in the future) than the tolerance. */
  | 'timestamp_outside_tolerance'
  /** No `v1=` signature matched any of the given secrets. */
  | 'signature_mismatch'
  /** The call itself was wrong: no secret given, or an unusable tolerance. */
  | 'options_invalid';

/** Thrown by {@link verifyWebhook}; `reason` says which check failed. Never carries secret material. */
export class WebhookVerificationError extends Error {
  constructor(
    readonly reason: WebhookVerificationReason,
    message: string,
  ) {
    super(message);
    this.name = 'WebhookVerificationError';
  }
}
