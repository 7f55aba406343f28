import type { FeatureDefinition } from '@svc/server';
import { ConsentRecordsConfig } from './consent-records.config';
import { ConsentRecordsModule } from './consent-records.module';
import { configureImportRoute } from './imports/import-limits';
import { consentRecordsMigrations } from './migrations';
import { CONSENT_RECORDS_SCHEMA } from './schema';

/** consent-records as composed into a process. */
export const consentRecordsFeature: FeatureDefinition = {
  name: 'consent-records',
  module: ConsentRecordsModule,
  config: ConsentRecordsConfig,
  migrations: [consentRecordsMigrations],
  outboxSchemas: [CONSENT_RECORDS_SCHEMA],
  configureFastify: configureImportRoute,
};
