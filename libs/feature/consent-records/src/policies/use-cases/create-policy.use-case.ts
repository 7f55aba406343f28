import { Injectable } from '@nestjs/common';
import type { Principal } from '@svc/auth';
import { Clock, PlatformConfig } from '@svc/config';
import { newRegionalId } from '@svc/ids';
import type { PolicyTerms, PolicyVersion } from '../policy';
import type { CreatePolicyBody } from '../policies.dto';
import { PoliciesRepository } from '../policies.repository';
import { checkPolicyTerms } from './policy-terms';

/** Creates a data policy as a `draft` version 1 (`pol_<region>_…`); it governs nothing until activated. */
@Injectable()
export class CreatePolicy {
  constructor(
    private readonly policies: PoliciesRepository,
    private readonly clock: Clock,
    private readonly config: PlatformConfig,
  ) {}

  async execute(principal: Principal, body: CreatePolicyBody): Promise<PolicyVersion> {
    const terms: PolicyTerms = {
      name: body.name,
      description: body.description ?? null,
      rules: body.rules.map((r) => ({ purpose: r.purpose, data_category: r.data_category, retention: r.retention })),
      flow_ids: body.flow_ids ?? [],
    };
    const id = newRegionalId('data_policy', this.config.REGION);
    const now = this.clock.now();
    await this.policies.transaction(async (manager) => {
      await checkPolicyTerms(this.policies, manager, principal.applicationId, terms);
      await this.policies.insertPolicy(manager, { id, applicationId: principal.applicationId, terms }, now);
    });
    return (await this.policies.find(principal.applicationId, id))!;
  }
}
