import type { SchemaMigrations } from '@svc/persistence';
import { WEBHOOKS_SCHEMA } from '../schema';
import { CreateWebhooks1795400000000 } from './1795400000000-create-webhooks';
import { AddSubscriptionEnvironment1796100000000 } from './1796100000000-add-subscription-environment';
import { AddSubscriptionSignatureFormats1796800000000 } from './1796800000000-add-subscription-signature-formats';
import { IndexDisabledSubscriptions1797700000000 } from './1797700000000-index-disabled-subscriptions';
import { AddDeliveryTraceContext1797800000000 } from './1797800000000-add-delivery-trace-context';
import { CreateSsfStreams1802000000000 } from './1802000000000-create-ssf-streams';

/** webhook-dispatcher's schema and its migrations, in order. */
export const webhooksMigrations: SchemaMigrations = {
  schema: WEBHOOKS_SCHEMA,
  migrations: [
    CreateWebhooks1795400000000,
    AddSubscriptionEnvironment1796100000000,
    AddSubscriptionSignatureFormats1796800000000,
    IndexDisabledSubscriptions1797700000000,
    AddDeliveryTraceContext1797800000000,
    CreateSsfStreams1802000000000,
  ],
};
