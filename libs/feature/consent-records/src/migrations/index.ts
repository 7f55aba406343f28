import type { SchemaMigrations } from '@svc/persistence';
import { CONSENT_RECORDS_SCHEMA } from '../schema';
import { CreateFlows1732400000000 } from './1732400000000-create-flows';
import { CreateRecords1732500000000 } from './1732500000000-create-records';

/** consent-records' schema and its migrations, in order. */
export const consentRecordsMigrations: SchemaMigrations = {
  schema: CONSENT_RECORDS_SCHEMA,
  migrations: [CreateFlows1732400000000, CreateRecords1732500000000],
};
