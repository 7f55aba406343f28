import { Injectable } from '@nestjs/common';
import type { Principal } from '@svc/auth';
import { Clock } from '@svc/config';
import type { PolicyVersion } from '../policy';
import { PoliciesRepository } from '../policies.repository';
import { findOwnedPolicy } from './policy-terms';

/**
 * Activates the policy's latest version: it becomes immutable and governs the retention of the
 * flows it names from the next sweep on; the previously active version is superseded.
 * Activating an already active latest version is an idempotent success.
 */
@Injectable()
export class ActivatePolicy {
  constructor(
    private readonly policies: PoliciesRepository,
    private readonly clock: Clock,
  ) {}

  async execute(principal: Principal, policyId: string): Promise<PolicyVersion> {
    const now = this.clock.now();
    await this.policies.transaction(async (manager) => {
      const latest = await findOwnedPolicy(this.policies, principal.applicationId, policyId, { manager, lock: true });
      if (latest.status === 'draft') await this.policies.activate(manager, policyId, latest.version, now);
    });
    return findOwnedPolicy(this.policies, principal.applicationId, policyId);
  }
}
