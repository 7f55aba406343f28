import { Injectable } from '@nestjs/common';
import type { Principal } from '@svc/auth';
import { Clock } from '@svc/config';
import type { PolicyTerms, PolicyVersion } from '../policy';
import type { UpdatePolicyBody } from '../policies.dto';
import { PoliciesRepository } from '../policies.repository';
import { checkPolicyTerms, findOwnedPolicy } from './policy-terms';

/**
 * Changes a policy: a draft latest version is edited in place; once the latest version is active
 * (immutable), the change opens version N+1 as a draft, and the active one keeps governing until
 * the new one is activated.
 */
@Injectable()
export class UpdatePolicy {
  constructor(
    private readonly policies: PoliciesRepository,
    private readonly clock: Clock,
  ) {}

  async execute(principal: Principal, policyId: string, body: UpdatePolicyBody): Promise<PolicyVersion> {
    const now = this.clock.now();
    await this.policies.transaction(async (manager) => {
      const latest = await findOwnedPolicy(this.policies, principal.applicationId, policyId, { manager, lock: true });
      const terms: PolicyTerms = {
        name: body.name ?? latest.terms.name,
        description: body.description ?? latest.terms.description,
        rules: body.rules
          ? body.rules.map((r) => ({ purpose: r.purpose, data_category: r.data_category, retention: r.retention }))
          : latest.terms.rules,
        flow_ids: body.flow_ids ?? latest.terms.flow_ids,
      };
      await checkPolicyTerms(this.policies, manager, principal.applicationId, terms);
      if (latest.status === 'draft') await this.policies.updateDraft(manager, policyId, latest.version, terms, now);
      else await this.policies.insertDraftVersion(manager, policyId, latest.latestVersion + 1, terms, now);
    });
    return findOwnedPolicy(this.policies, principal.applicationId, policyId);
  }
}
