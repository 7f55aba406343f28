import type { SchemaMigrations } from '@svc/persistence';
import { OVERSIGHT_SCHEMA } from '../schema';
import { CreateOversight1795500000000 } from './1795500000000-create-oversight';
import { CreatePolicyEngines1803000000000 } from './1803000000000-create-policy-engines';

/** oversight-witness's schema and its migrations, in order. */
export const oversightMigrations: SchemaMigrations = {
  schema: OVERSIGHT_SCHEMA,
  migrations: [CreateOversight1795500000000, CreatePolicyEngines1803000000000],
};
