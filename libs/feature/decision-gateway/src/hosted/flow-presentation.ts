import { Injectable } from '@nestjs/common';
import { RpcClient } from '@svc/bus';
import type { FlowPresentation } from './render-page';

/** What `consent_records.get_flow` says about one flow version. */
export interface FlowFacts extends FlowPresentation {
  found: boolean;
  status: string;
  activeVersion: number;
}

/** Reads a flow's wording over NATS request/reply: decision-gateway never reads consent_records' tables. */
@Injectable()
export class FlowPresentations {
  constructor(private readonly rpc: RpcClient) {}

  /** `version` 0 asks for the active version (or the latest draft). */
  async get(applicationId: string, flowId: string, version: number): Promise<FlowFacts> {
    const reply = await this.rpc.call('consent_records.get_flow', { applicationId, flowId, version });
    return {
      found: reply.found,
      status: reply.status,
      activeVersion: reply.activeVersion,
      title: reply.title,
      description: reply.description,
      locale: reply.locale,
      policyUrl: reply.policyUrl,
      purposes: reply.purposes.map((p) => ({
        key: p.key,
        label: p.label,
        description: p.description,
        required: p.required,
        mechanism: p.mechanism,
      })),
      requirements: [...reply.requirements],
    };
  }
}
