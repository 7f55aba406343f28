import { Inject, Injectable } from '@nestjs/common';
import type { Principal } from '@svc/auth';
import { RpcClient } from '@svc/bus';
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
 *
 * Before it does, decision-gateway (which owns the application's governance and regime modules)
 * checks the activation (`gateway.check_flow_activation`) with the version row locked, so the
 * terms checked are the terms activated: the caller must hold the `activate_flows` role
 * (403 `governance_forbidden`), carry out an approved change request under four-eyes (409
 * `approval_required`), and the terms must satisfy every enabled module's rules (422
 * `module_rule_violated`, `detail.field` / `rule` / `regime`). A refusal activates nothing.
 */
@Injectable()
export class ActivateFlow {
  constructor(
    private readonly flows: FlowsRepository,
    @Inject(CONSENT_RECORDS_OUTBOX) private readonly outbox: OutboxWriter,
    private readonly clock: Clock,
    private readonly rpc: RpcClient,
  ) {}

  async execute(principal: Principal, flowId: string): Promise<FlowVersion> {
    const now = this.clock.now();
    await this.flows.transaction(async (manager) => {
      const latest = await findOwnedFlow(this.flows, principal.applicationId, flowId, { manager, lock: true });
      if (latest.status !== 'draft') return;
      const { terms } = latest;
      await this.rpc.call('gateway.check_flow_activation', {
        applicationId: principal.applicationId,
        actorId: principal.personId ?? principal.credentialId,
        flowId,
        version: latest.version,
        termsJson: JSON.stringify({
          purposes: terms.purposes.map((purpose) => ({ key: purpose.key, mechanism: purpose.mechanism, required: purpose.required })),
          data_fields: terms.data_fields.map((field) => ({ key: field.key, required: field.required })),
          retention_period: terms.retention_period,
          revocation_policy: terms.revocation_policy,
          requirements: terms.requirements,
        }),
      });
      await this.flows.activate(manager, flowId, latest.version, now);
      await this.outbox.add(
        manager,
        'flow.activated',
        {
          flowId,
          version: latest.version,
          previousVersion: latest.activeVersion ?? 0,
          capturableInOwnForm: capturableInOwnForm(latest.terms),
        },
        { applicationId: principal.applicationId, occurredAt: now },
      );
    });
    return findOwnedFlow(this.flows, principal.applicationId, flowId);
  }
}
