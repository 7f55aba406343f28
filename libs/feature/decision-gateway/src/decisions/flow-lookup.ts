import { Injectable } from '@nestjs/common';
import { RpcClient } from '@svc/bus';
import { decisionError } from './decisions.errors';
import { SettledFlowVersions } from './settled-flow-versions';

/** The flow version a consent session is bound to. */
export interface GoverningFlow {
  flowId: string;
  version: number;
  consentPath: 'standard' | 'informed';
  purposes: string[];
}

/**
 * Asks consent-records (NATS request/reply, `consent_records.get_flow`) for the flow's active
 * version: decision-gateway never reads the consent_records schema, so both services deploy apart.
 */
@Injectable()
export class FlowLookup {
  constructor(
    private readonly rpc: RpcClient,
    /** Versions past their draft are asked once: their purposes never change. */
    private readonly versions: SettledFlowVersions,
  ) {}

  async activeFlow(applicationId: string, flowId: string): Promise<GoverningFlow> {
    const reply = await this.rpc.call('consent_records.get_flow', { applicationId, flowId, version: 0 });
    if (!reply.found) throw decisionError('flow_not_found', 'Flow not found', { flow_id: flowId });
    if (reply.activeVersion === 0 || reply.status !== 'active') {
      throw decisionError('flow_not_active', 'The flow is a draft: activate it before creating sessions', {
        flow_id: flowId,
        status: 'draft',
      });
    }
    return {
      flowId: reply.flowId,
      version: reply.version,
      consentPath: reply.consentPath === 'informed' ? 'informed' : 'standard',
      purposes: reply.purposes.map((p) => p.key),
    };
  }

  /**
   * Purposes of a flow version that are not the person's choice: required and on a lawful basis
   * other than consent (contract, legal obligation…). A consent purpose is never a condition
   * (spec, Other rules: a mandatory consent purpose is refused), so it stays a free choice.
   */
  async fixedPurposes(applicationId: string, flowId: string, version: number): Promise<string[]> {
    const reply = await this.versions.terms(applicationId, flowId, version);
    if (!reply.found) throw decisionError('flow_not_found', 'Flow not found', { flow_id: flowId });
    return reply.purposes.filter((p) => p.required && p.mechanism !== 'consent').map((p) => p.key);
  }
}
