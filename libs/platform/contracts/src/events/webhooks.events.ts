import { WebhookDeliveryFailedSchema } from '../gen/svc/events/v1/webhooks_pb';

/** Events of the webhook dispatcher. */
export const WEBHOOKS_EVENTS = {
  'webhook.delivery_failed': { schema: WebhookDeliveryFailedSchema, version: 1 },
} as const;
