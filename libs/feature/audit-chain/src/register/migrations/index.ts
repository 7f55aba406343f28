import type { SchemaMigrations } from '@svc/persistence';
import { RESIDENCY_SCHEMA } from '../schema';
import { CreateTransferRegister1795700000000 } from './1795700000000-create-transfer-register';

/** The transfer register's schema and its migrations, in order. */
export const residencyMigrations: SchemaMigrations = {
  schema: RESIDENCY_SCHEMA,
  migrations: [CreateTransferRegister1795700000000],
};
