import { Module } from '@nestjs/common';
import { Clock } from '@svc/config';
import { SigningKeyStore } from '@svc/key-store';
import { LOGGER, OutboxRegistry } from '@svc/server';
import { BUSINESS_METRICS, Metrics, type Logger } from '@svc/telemetry';
import { DataSource } from 'typeorm';
import { AuditChainConfig } from './audit-chain.config';
import { AuditChainLifecycle } from './audit-chain.lifecycle';
import { AuditChain } from './audit-chain.runtime';
import { AuditRpcHandlers } from './audit-rpc.handlers';
import { chainOrigin } from './chain/chain-identity';
import { AuditEvidencePackages } from './evidence/audit-evidence-packages';
import { AuditEventConsumer } from './consumer/audit-event-consumer';
import { AuditController } from './http/audit.controller';
import { EvidencePackagesController } from './http/evidence-packages.controller';
import { WellKnownController } from './http/well-known.controller';
import { AUDIT_SCHEMA } from './schema';

/** audit-chain: the hash-chained audit trail per region, witnessed checkpoints, verification and transparency endpoints. */
@Module({
  controllers: [AuditController, WellKnownController, AuditRpcHandlers, EvidencePackagesController, AuditEventConsumer],
  providers: [
    {
      provide: AuditChain,
      useFactory: (
        dataSource: DataSource,
        keys: SigningKeyStore,
        config: AuditChainConfig,
        clock: Clock,
        outboxes: OutboxRegistry,
        metrics: Metrics,
        logger: Logger,
      ) => {
        const appended = metrics.counterOf(BUSINESS_METRICS.auditEntriesAppended);
        return new AuditChain({
          dataSource,
          keys,
          config,
          region: config.REGION,
          origin: chainOrigin(config.publicBaseUrl, config.REGION),
          clock,
          outbox: outboxes.writer(AUDIT_SCHEMA),
          onAppended: (count) => appended.inc(count),
          onError: (error) =>
            logger.error({ error: error instanceof Error ? error.message : String(error) }, 'audit checkpoint round failed'),
        });
      },
      inject: [DataSource, SigningKeyStore, AuditChainConfig, Clock, OutboxRegistry, Metrics, LOGGER],
    },
    AuditChainLifecycle,
    AuditEvidencePackages,
  ],
  exports: [AuditChain],
})
export class AuditChainModule {}
