import type { FeatureDefinition } from '@svc/server';
import { WebhookDispatcherModule } from './webhook-dispatcher.module';

/** webhook-dispatcher as composed into a process. */
export const webhookDispatcherFeature: FeatureDefinition = {
  name: 'webhook-dispatcher',
  module: WebhookDispatcherModule,
  migrations: [],
  outboxSchemas: [],
};
