export { WebhookDispatcherModule } from './webhook-dispatcher.module';
export { webhookDispatcherFeature } from './webhook-dispatcher.feature';
