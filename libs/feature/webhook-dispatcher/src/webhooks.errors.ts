import { defineErrors } from '@svc/errors';

/** Closed list of webhook-dispatcher reason codes. */
export const webhookError = defineErrors({
  /** The path's application is not the caller's (answered exactly like an unknown one). */
  application_not_found: 'not_found',
  webhook_subscription_not_found: 'not_found',
  /** Not an absolute http(s) URL, or it carries credentials or a fragment. */
  webhook_url_invalid: 'unprocessable',
  /** Production applications deliver only over HTTPS; development ones also to http://localhost. */
  webhook_url_requires_https: 'unprocessable',
  /**
   * The host is, or resolves to, an address webhooks may not reach (private, loopback, link-local,
   * metadata, ...); development applications may use loopback. `detail.range` names the range.
   */
  webhook_url_address_refused: 'unprocessable',
  /** An event name outside the subscribable list; `detail.event` names it. */
  webhook_event_unknown: 'unprocessable',
  /**
   * Standard Webhooks was asked for while the current secret predates the base64 `whsec_` form the
   * Standard Webhooks libraries decode; rotate the secret first.
   */
  webhook_secret_rotation_required: 'conflict',
  /** The application already has the maximum number of subscriptions. */
  webhook_subscription_limit_reached: 'conflict',
  /** No Shared Signals stream of the caller's application has this `stream_id` (another application's answers the same). */
  ssf_stream_not_found: 'not_found',
  /** The application already has the maximum number of streams. */
  ssf_stream_limit_reached: 'conflict',
  /** `delivery.method` is not RFC 8935 push (`urn:ietf:rfc:8935`), the one method offered. */
  ssf_delivery_method_unsupported: 'unprocessable',
  /** A disabled stream delivers nothing, verification events included; enable it first. */
  ssf_stream_disabled: 'conflict',
  /** Idempotency-Key is not 1-255 visible ASCII characters. */
  idempotency_key_invalid: 'invalid',
  /** The same Idempotency-Key was used with another stream configuration. */
  idempotency_key_reused: 'unprocessable',
});
