import type { SchemaMigrations } from '@svc/persistence';
import { AUDIT_SCHEMA } from '../schema';
import { CreateAuditChain1795400000000 } from './1795400000000-create-audit-chain';
import { CreateEvidencePackages1804000000000 } from './1804000000000-create-evidence-packages';

/** audit-chain's schema and its migrations, in order. */
export const auditMigrations: SchemaMigrations = {
  schema: AUDIT_SCHEMA,
  migrations: [CreateAuditChain1795400000000, CreateEvidencePackages1804000000000],
};
