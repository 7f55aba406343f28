import type { FeatureDefinition } from '@svc/server';
import { ReceiptsModule } from './receipts.module';
import { receiptsMigrations } from './storage/migrations';

/** receipts as composed into a process. It relays the `keys` outbox (key rotation events). */
export const receiptsFeature: FeatureDefinition = {
  name: 'receipts',
  module: ReceiptsModule,
  migrations: [receiptsMigrations],
  outboxSchemas: ['keys'],
};
