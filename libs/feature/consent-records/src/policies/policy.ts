/**
 * Data policies (Protect surface, `/api/v1/policies`): how long the data collected for a purpose
 * may be kept, per data category, for the flows the policy is attached to. A policy has versions
 * like a flow: the latest one is edited while it is a draft, activation makes it govern and
 * freezes it, and a change after that opens version N+1 as a draft.
 */

/** Status of one version: `draft` (editable), `active` (governs, immutable), `superseded`. */
export type PolicyVersionStatus = 'draft' | 'active' | 'superseded';

/**
 * One retention rule: the data of `data_category` collected for `purpose` is kept for at most
 * `retention` (ISO 8601 duration) from the moment the consent was captured. For a consent
 * record whose flow the policy is attached to and in which `purpose` was granted, the consent
 * ends when the shortest matching rule's retention has run out, if that comes before the
 * flow's own `consent_duration`.
 */
export interface RetentionRule {
  purpose: string;
  data_category: string;
  retention: string;
}

/** The terms of one version: what activation freezes. */
export interface PolicyTerms {
  name: string;
  description: string | null;
  rules: RetentionRule[];
  flow_ids: string[];
}

/** One stored version with its policy's counters. */
export interface PolicyVersion {
  policyId: string;
  applicationId: string;
  version: number;
  status: PolicyVersionStatus;
  terms: PolicyTerms;
  activeVersion: number | null;
  latestVersion: number;
  createdAt: Date;
  updatedAt: Date;
  activatedAt: Date | null;
}

/** Wire shape `data_policy`: one version of a policy. */
export function policyView(policy: PolicyVersion): Record<string, unknown> {
  return {
    id: policy.policyId,
    object: 'data_policy',
    application_id: policy.applicationId,
    status: policy.activeVersion === null ? 'draft' : 'active',
    version: policy.version,
    version_status: policy.status,
    active_version: policy.activeVersion,
    latest_version: policy.latestVersion,
    name: policy.terms.name,
    description: policy.terms.description,
    rules: policy.terms.rules,
    flow_ids: policy.terms.flow_ids,
    created_at: policy.createdAt.toISOString(),
    updated_at: policy.updatedAt.toISOString(),
    activated_at: policy.activatedAt?.toISOString() ?? null,
  };
}
