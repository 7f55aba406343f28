import type { FeatureDefinition } from '@svc/server';
import { ReceiptsModule } from './receipts.module';

/** receipts as composed into a process. */
export const receiptsFeature: FeatureDefinition = {
  name: 'receipts',
  module: ReceiptsModule,
  migrations: [],
  outboxSchemas: ['keys'],
};
