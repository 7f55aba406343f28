export { WebhookDispatcherModule } from './webhook-dispatcher.module';
export { webhookDispatcherFeature } from './webhook-dispatcher.feature';
export { WebhookDispatcherConfig } from './webhook-dispatcher.config';
export { WEBHOOKS_SCHEMA } from './schema';
export { webhooksMigrations } from './migrations';
export { webhookError } from './webhooks.errors';
export { SUBSCRIBABLE_EVENT_TYPES, TEST_EVENT_TYPE, DELIVERY_FAILED_EVENT, type SubscribableEventType } from './webhook-events';
export { DeliveryWorker } from './deliveries/delivery-worker';
export { DeliveriesRepository } from './deliveries/deliveries.repository';
export { EventIntake, INTAKE_CONSUMER } from './intake/event-intake';
export { SubscribedApplications } from './subscriptions/subscribed-applications';
export { SubscriptionsRepository } from './subscriptions/subscriptions.repository';
export { MAX_ATTEMPTS, RETRY_WAITS_MS, AUTO_DISABLE_AFTER } from './deliveries/retry-schedule';
export { signatureHeader } from './deliveries/signature';
export { webhookBody, type WebhookEvent } from './deliveries/webhook-body';
export { newDeliveryId, newSubscriptionId } from './ids';
export { documentedWebhooks, WEBHOOK_DELIVERY_HEADERS } from './webhook-documentation';
export { SsfIntake } from './ssf/ssf-intake';
export { SetDeliveryWorker } from './ssf/set-delivery-worker';
export {
  CAEP_SESSION_REVOKED,
  CAEP_TOKEN_CLAIMS_CHANGE,
  SSF_EVENTS_SUPPORTED,
  SSF_SOURCE_EVENTS,
  SSF_VERIFICATION,
  securityEventOf,
  type SecurityEvent,
  type SubjectIdentifier,
} from './ssf/security-events';
export { SET_TYPE } from './ssf/set-signer';
export { PUSH_DELIVERY_METHOD } from './ssf/ssf-stream';
