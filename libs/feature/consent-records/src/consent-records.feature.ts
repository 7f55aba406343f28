import type { FeatureDefinition } from '@svc/server';
import { ConsentRecordsModule } from './consent-records.module';

/** consent-records as composed into a process. */
export const consentRecordsFeature: FeatureDefinition = {
  name: 'consent-records',
  module: ConsentRecordsModule,
  migrations: [],
  outboxSchemas: [],
};
