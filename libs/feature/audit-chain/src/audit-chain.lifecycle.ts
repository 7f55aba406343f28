import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { BusConnection } from '@svc/bus';
import { Clock } from '@svc/config';
import { LOGGER } from '@svc/server';
import { BUSINESS_METRICS, Metrics, Readiness, type Logger } from '@svc/telemetry';
import { AuditChain } from './audit-chain.runtime';
import { AuditEventConsumer } from './consumer/audit-event-consumer';

/**
 * Boot and shutdown of the audit chain: genesis entry, the event consumer, the checkpoint timer,
 * the witness readiness check (non-critical: a missing witness never makes the region unready,
 * and never blocks appends) and the witness and checkpoint gauges on /metrics.
 */
@Injectable()
export class AuditChainLifecycle implements OnApplicationBootstrap, OnApplicationShutdown {
  private consumer?: AuditEventConsumer;

  constructor(
    private readonly chain: AuditChain,
    private readonly bus: BusConnection,
    private readonly readiness: Readiness,
    private readonly metrics: Metrics,
    private readonly clock: Clock,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.chain.appender.ensureGenesis();
    this.registerWitnessObservability();
    this.consumer = new AuditEventConsumer(this.bus, this.chain.appender, this.logger);
    await this.consumer.start();
    this.chain.scheduler.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.chain.scheduler.stop();
    await this.consumer?.stop();
    await this.chain.appender.drain();
  }

  private registerWitnessObservability(): void {
    const { chain } = this;
    const witness = chain.witness;
    // Without a configured witness there is nothing to report (witness-configuration says so).
    if (witness) {
      this.readiness.register({
        name: 'audit_witness',
        critical: false,
        check: async () => {
          const health = chain.witnessHealth;
          return {
            ok: health.ok,
            detail: {
              witness: witness.name,
              consecutive_failures: health.consecutiveFailures,
              last_success_at: health.lastSuccessAt?.toISOString() ?? null,
              pending_checkpoints: await chain.checkpoints.countPending(),
              ...(health.lastError ? { last_error: health.lastError } : {}),
            },
          };
        },
      });
    }
    this.metrics.gaugeOf(BUSINESS_METRICS.auditWitnessUp, (set) => set(chain.witness ? (chain.witnessHealth.ok ? 1 : 0) : -1));
    this.metrics.gaugeOf(BUSINESS_METRICS.auditWitnessFailures, (set) => set(chain.witnessHealth.consecutiveFailures));
    const ageOf = (at: Date | undefined): number => (at ? Math.max(0, (this.clock.now().getTime() - at.getTime()) / 1000) : 0);
    this.metrics.gaugeOf(BUSINESS_METRICS.auditCheckpointAge, async (set) => set(ageOf((await chain.checkpoints.milestones()).latest)));
    this.metrics.gaugeOf(BUSINESS_METRICS.auditWitnessedCheckpointAge, async (set) => {
      if (!chain.witness) return set(-1);
      const { latestCosigned, first } = await chain.checkpoints.milestones();
      set(ageOf(latestCosigned ?? first));
    });
  }
}
