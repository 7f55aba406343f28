import type { FeatureDefinition } from '@svc/server';
import { AuditChainConfig } from './audit-chain.config';
import { AuditChainModule } from './audit-chain.module';
import { auditMigrations } from './migrations';
import { AUDIT_SCHEMA } from './schema';

/** audit-chain as composed into a process. */
export const auditChainFeature: FeatureDefinition = {
  name: 'audit-chain',
  module: AuditChainModule,
  config: AuditChainConfig,
  migrations: [auditMigrations],
  outboxSchemas: [AUDIT_SCHEMA],
};
