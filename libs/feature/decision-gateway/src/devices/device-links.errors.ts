import { defineErrors } from '@svc/errors';

/** Closed list of reason codes of device links. */
export const deviceLinkError = defineErrors({
  /** No device link of the signed-in person has this id (or it is another person's). */
  device_link_not_found: 'not_found',
  /** The link code is unknown, used, expired or revoked: make a new one on the inbox page. */
  link_code_invalid: 'gone',
  /** Web Push is not configured on this platform (no VAPID keys): a phone cannot register. */
  push_not_configured: 'unavailable',
  /** The subscription's keys are not a P-256 public key (`p256dh`). */
  push_subscription_invalid: 'unprocessable',
  /** The subscription's endpoint is not on one of the configured push services. */
  push_endpoint_not_allowed: 'unprocessable',
  /** The person already has the most active and pending links allowed. */
  device_link_limit: 'conflict',
});
