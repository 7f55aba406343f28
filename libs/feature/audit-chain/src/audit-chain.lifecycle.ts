import { Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { Clock } from '@svc/config';
import { BUSINESS_METRICS, Metrics, Readiness } from '@svc/telemetry';
import { AuditChain } from './audit-chain.runtime';

/**
 * Boot and shutdown of the audit chain: genesis entry (before the event consumer starts), the checkpoint timer,
 * the witness readiness check (non-critical: a missing witness never makes the region unready,
 * and never blocks appends) and the witness and checkpoint gauges on /metrics.
 */
@Injectable()
export class AuditChainLifecycle implements OnApplicationBootstrap, OnApplicationShutdown {
  constructor(
    private readonly chain: AuditChain,
    private readonly readiness: Readiness,
    private readonly metrics: Metrics,
    private readonly clock: Clock,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.chain.appender.ensureGenesis();
    this.registerWitnessObservability();
    this.chain.scheduler.start();
  }

  async onApplicationShutdown(): Promise<void> {
    // The event consumer (AuditEventConsumer, on the bus transport) has stopped before these hooks run.
    await this.chain.scheduler.stop();
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
