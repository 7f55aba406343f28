import type { SchemaMigrations } from '@svc/persistence';
import { CONSENT_RECORDS_SCHEMA } from '../schema';
import { CreateFlows1732400000000 } from './1732400000000-create-flows';

/** consent-records' schema and its migrations, in order. */
export const consentRecordsMigrations: SchemaMigrations = {
  schema: CONSENT_RECORDS_SCHEMA,
  migrations: [CreateFlows1732400000000],
};
