import { WebhookDeliveryFailedSchema } from '../gen/svc/events/v1/webhooks_pb';
import type { EventEntry } from './event-entry';

/** Events of the webhook dispatcher. */
export const WEBHOOKS_EVENTS = {
  'webhook.delivery_failed': {
    schema: WebhookDeliveryFailedSchema,
    version: 1,
    producer: 'webhook-dispatcher',
    webhook: true,
    audited: true,
    meaning: 'A webhook delivery failed for good after its last attempt',
  },
} as const satisfies Record<string, EventEntry>;
