import type { EntityManager } from 'typeorm';
import { isIdOf } from '@svc/ids';
import { consentRecordsError } from '../../consent-records.errors';
import type { PolicyTerms, PolicyVersion } from '../policy';
import type { PoliciesRepository } from '../policies.repository';

/** Refuses two rules for one purpose and data category, and flows that are not the application's. */
export async function checkPolicyTerms(
  policies: PoliciesRepository,
  manager: EntityManager,
  applicationId: string,
  terms: PolicyTerms,
): Promise<void> {
  const seen = new Set<string>();
  for (const rule of terms.rules) {
    const key = `${rule.purpose}\u0000${rule.data_category}`;
    if (seen.has(key))
      throw consentRecordsError('policy_rule_duplicate', 'Two rules name the same purpose and data category', {
        purpose: rule.purpose,
        data_category: rule.data_category,
      });
    seen.add(key);
  }
  const [unknown] = await policies.unknownFlows(applicationId, terms.flow_ids, manager);
  if (unknown !== undefined)
    throw consentRecordsError('policy_flow_not_found', 'flow_ids names a flow this application does not have', {
      field: 'flow_ids',
      flow_id: unknown,
    });
}

/**
 * Loads a version of one of the caller's policies. A malformed id, an unknown id and another
 * application's id all answer 404 policy_not_found, so ids cannot be probed.
 */
export async function findOwnedPolicy(
  policies: PoliciesRepository,
  applicationId: string,
  policyId: string,
  options: Parameters<PoliciesRepository['find']>[3] = {},
): Promise<PolicyVersion> {
  const policy = isIdOf('data_policy', policyId) ? await policies.find(applicationId, policyId, undefined, options) : undefined;
  if (!policy) throw consentRecordsError('policy_not_found', 'Policy not found', { policy_id: policyId });
  return policy;
}
