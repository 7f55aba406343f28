import type { FeatureDefinition } from '@svc/server';
import { AuditChainModule } from './audit-chain.module';

/** audit-chain as composed into a process. */
export const auditChainFeature: FeatureDefinition = {
  name: 'audit-chain',
  module: AuditChainModule,
  migrations: [],
  outboxSchemas: [],
};
