import type { FeatureDefinition } from '@svc/server';
import { ReceiptsConfig } from './receipts.config';
import { ReceiptsModule } from './receipts.module';
import { receiptsMigrations } from './storage/migrations';

/** receipts as composed into a process. It relays the `keys` outbox (key rotation events). */
export const receiptsFeature: FeatureDefinition = {
  name: 'receipts',
  module: ReceiptsModule,
  config: ReceiptsConfig,
  migrations: [receiptsMigrations],
  outboxSchemas: ['keys'],
};
