import { Injectable } from '@nestjs/common';
import type { Principal } from '@svc/auth';
import { Clock } from '@svc/config';
import type { FlowVersion } from '../flow';
import { termsWithUpdate } from '../flow-terms';
import type { UpdateFlowBody } from '../flows.dto';
import { FlowsRepository } from '../flows.repository';
import { findOwnedFlow } from './find-flow';

/**
 * Changes a flow's terms. A draft latest version is edited in place; an active one is immutable,
 * so the change opens version N+1 as a draft while version N keeps governing sessions (and every
 * consent already collected keeps pointing at the version it was collected under).
 */
@Injectable()
export class UpdateFlow {
  constructor(
    private readonly flows: FlowsRepository,
    private readonly clock: Clock,
  ) {}

  async execute(principal: Principal, flowId: string, body: UpdateFlowBody): Promise<FlowVersion> {
    const now = this.clock.now();
    await this.flows.transaction(async (manager) => {
      const latest = await findOwnedFlow(this.flows, principal.applicationId, flowId, { manager, lock: true });
      const terms = termsWithUpdate(latest.terms, body);
      if (latest.status === 'draft') await this.flows.updateDraftTerms(manager, flowId, latest.version, terms, now);
      else await this.flows.insertDraftVersion(manager, flowId, latest.version + 1, terms, now);
    });
    return findOwnedFlow(this.flows, principal.applicationId, flowId);
  }
}
