import type { SchemaMigrations } from '@svc/persistence';
import { GATEWAY_SCHEMA } from '../schema';
import { CreateConnect1732300000000 } from './1732300000000-create-connect';

/** decision-gateway's schema and its migrations, in order. */
export const gatewayMigrations: SchemaMigrations = {
  schema: GATEWAY_SCHEMA,
  migrations: [CreateConnect1732300000000],
};
