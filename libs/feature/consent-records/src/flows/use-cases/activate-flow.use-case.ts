import { Inject, Injectable } from '@nestjs/common';
import type { Principal } from '@svc/auth';
import { Clock } from '@svc/config';
import type { OutboxWriter } from '@svc/persistence';
import { CONSENT_RECORDS_OUTBOX } from '../../tokens';
import { capturableInOwnForm, type FlowVersion } from '../flow';
import { FlowsRepository } from '../flows.repository';
import { findOwnedFlow } from './find-flow';

/**
 * Activates the flow's latest version: its terms become immutable, it governs new sessions, and
 * `flow.activated` is published. Activating an already active latest version is an idempotent
 * success without a second event.
 */
@Injectable()
export class ActivateFlow {
  constructor(
    private readonly flows: FlowsRepository,
    @Inject(CONSENT_RECORDS_OUTBOX) private readonly outbox: OutboxWriter,
    private readonly clock: Clock,
  ) {}

  async execute(principal: Principal, flowId: string): Promise<FlowVersion> {
    const now = this.clock.now();
    await this.flows.transaction(async (manager) => {
      const latest = await findOwnedFlow(this.flows, principal.applicationId, flowId, { manager, lock: true });
      if (latest.status !== 'draft') return;
      await this.flows.activate(manager, flowId, latest.version, now);
      await this.outbox.add(
        manager,
        'flow.activated',
        { flowId, version: latest.version, previousVersion: latest.activeVersion ?? 0, capturableInOwnForm: capturableInOwnForm(latest.terms) },
        { applicationId: principal.applicationId, occurredAt: now },
      );
    });
    return findOwnedFlow(this.flows, principal.applicationId, flowId);
  }
}
