import type { FeatureDefinition } from '@svc/server';
import { WebhookDispatcherConfig } from './webhook-dispatcher.config';
import { webhooksMigrations } from './migrations';
import { WEBHOOKS_SCHEMA } from './schema';
import { WebhookDispatcherModule } from './webhook-dispatcher.module';

/** webhook-dispatcher as composed into a process. */
export const webhookDispatcherFeature: FeatureDefinition = {
  name: 'webhook-dispatcher',
  module: WebhookDispatcherModule,
  config: WebhookDispatcherConfig,
  migrations: [webhooksMigrations],
  outboxSchemas: [WEBHOOKS_SCHEMA],
};
