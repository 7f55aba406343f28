export { AuditChainModule } from './audit-chain.module';
export { auditChainFeature } from './audit-chain.feature';
