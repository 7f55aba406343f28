export {
  DEFAULT_WEBHOOK_TOLERANCE_SEC,
  WEBHOOK_EVENT_ID_HEADER,
  WEBHOOK_EVENT_TYPE_HEADER,
  WEBHOOK_SIGNATURE_HEADER,
  WEBHOOK_TIMESTAMP_HEADER,
  verifyWebhook,
  type VerifiedWebhook,
  type VerifyWebhookOptions,
  type WebhookHeaders,
} from './verify-webhook';
export { WebhookVerificationError, type WebhookVerificationReason } from './webhook-verification.error';
