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
});
