import { Injectable } from '@nestjs/common';
import type { Principal } from '@svc/auth';
import { Clock, PlatformConfig } from '@svc/config';
import { newRegionalId } from '@svc/ids';
import type { FlowVersion } from '../flow';
import { termsFromCreate } from '../flow-terms';
import type { CreateFlowBody } from '../flows.dto';
import { FlowsRepository } from '../flows.repository';

/** Creates a flow as a `draft` version 1 (`flw_<region>_…`); it refuses sessions until activated. */
@Injectable()
export class CreateFlow {
  constructor(
    private readonly flows: FlowsRepository,
    private readonly clock: Clock,
    private readonly config: PlatformConfig,
  ) {}

  async execute(principal: Principal, body: CreateFlowBody): Promise<FlowVersion> {
    const terms = termsFromCreate(body);
    const id = newRegionalId('flow', this.config.REGION);
    const now = this.clock.now();
    await this.flows.transaction((manager) => this.flows.insertFlow(manager, { id, applicationId: principal.applicationId, terms }, now));
    return (await this.flows.find(principal.applicationId, id))!;
  }
}
