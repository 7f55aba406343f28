import type { FlowResponse } from './flow.response';

/** Lawful-basis mechanisms a flow purpose may declare (GDPR Art. 6(1) bases). */
export const PURPOSE_MECHANISMS = [
  'consent',
  'contract',
  'legal_obligation',
  'vital_interest',
  'public_task',
  'legitimate_interest',
] as const;
export type PurposeMechanism = (typeof PURPOSE_MECHANISMS)[number];

/**
 * The two session paths of the spec's status table: `standard` (sign in, checks, review, complete)
 * and `informed` (disclosures presented, evidence captured, complete).
 */
export const CONSENT_PATHS = ['standard', 'informed'] as const;
export type ConsentPath = (typeof CONSENT_PATHS)[number];

/** Steps beyond the decision itself a flow may require (spec, Flow: "verification, data-collection or bank step"). */
export const FLOW_REQUIREMENTS = ['identity_verification', 'data_collection', 'bank_connection'] as const;
export type FlowRequirement = (typeof FLOW_REQUIREMENTS)[number];

export const REVOCATION_POLICIES = ['any_time', 'contact_controller'] as const;
export type RevocationPolicy = (typeof REVOCATION_POLICIES)[number];

export const FLOW_VERSION_STATUSES = ['draft', 'active', 'superseded'] as const;
export type FlowVersionStatus = (typeof FLOW_VERSION_STATUSES)[number];

/** ISO 8601 duration in the date/time form, e.g. `P1Y`, `P6M`, `P30D`, `PT12H`. */
export const ISO_DURATION = /^P(?!$)(\d+Y)?(\d+M)?(\d+W)?(\d+D)?(T(?=\d)(\d+H)?(\d+M)?(\d+S)?)?$/;

export interface FlowPurpose {
  key: string;
  label: string;
  description: string;
  mechanism: PurposeMechanism;
  required: boolean;
}

export interface FlowDataField {
  key: string;
  label: string;
  required: boolean;
}

/**
 * A flow version's terms: everything the person is shown or bound by. Frozen once the version is
 * activated; a change after that is a new version.
 */
export interface FlowTerms {
  name: string;
  locale: string;
  presentation: { title: string; description: string };
  policy_url: string | null;
  purposes: FlowPurpose[];
  data_fields: FlowDataField[];
  purpose_of_use: string | null;
  /** ISO 8601 duration the collected data is kept, or null when not declared. */
  retention_period: string | null;
  revocation_policy: RevocationPolicy;
  consent_path: ConsentPath;
  requirements: FlowRequirement[];
  /** ISO 8601 duration a consent stays valid, or null when open-ended. */
  consent_duration: string | null;
}

/** One version of a flow as stored. */
export interface FlowVersion {
  flowId: string;
  applicationId: string;
  version: number;
  status: FlowVersionStatus;
  terms: FlowTerms;
  /** Version governing new sessions, null while the flow has never been activated. */
  activeVersion: number | null;
  latestVersion: number;
  createdAt: Date;
  updatedAt: Date;
  activatedAt: Date | null;
}

/**
 * Spec, Flow: capturable in the organisation's own form only if its consent needs nothing but a
 * decision (no verification, data-collection or bank step) and it declares a consent duration.
 * The informed-consent path captures evidence (comprehension check, signature), so it is more
 * than a decision as well.
 */
export function capturableInOwnForm(terms: Pick<FlowTerms, 'requirements' | 'consent_path' | 'consent_duration'>): boolean {
  return terms.requirements.length === 0 && terms.consent_path === 'standard' && terms.consent_duration !== null;
}

/** The flow's wire shape (a version of it), published in the OpenAPI document as `Flow`. */
/** `publicBaseUrl`: the config's, without a trailing slash. */
export function flowView(flow: FlowVersion, publicBaseUrl: string): Record<string, unknown> {
  const base = publicBaseUrl;
  return {
    id: flow.flowId,
    object: 'flow',
    application_id: flow.applicationId,
    // The flow is active once any version governs new sessions; the version shown may be a newer draft.
    status: flow.activeVersion === null ? 'draft' : 'active',
    version: flow.version,
    version_status: flow.status,
    active_version: flow.activeVersion,
    latest_version: flow.latestVersion,
    ...flow.terms,
    capturable_in_own_form: capturableInOwnForm(flow.terms),
    // The hosted flow page answers 404 while the flow is a draft, so no URL is advertised then.
    flow_url: flow.activeVersion === null ? null : `${base}/accord/${flow.flowId}`,
    created_at: flow.createdAt.toISOString(),
    updated_at: flow.updatedAt.toISOString(),
    activated_at: flow.activatedAt?.toISOString() ?? null,
  } satisfies FlowResponse;
}
