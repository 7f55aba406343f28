import type { EventChannel, ExtensionsSection, LawfulBasis, PartyRole, PartyType, ProcessingLocation } from './receipt-document';

/**
 * Plain inputs of the receipt builders: what consent-records (consent records), the disclosure
 * endpoint (notices) and oap-authorizer (authorities) hand over when a receipt is frozen. They are
 * facts the platform knows; every optional member is omitted when the fact is unknown, and the
 * builder then omits the field it feeds (absence rule). Times are ISO 8601 strings (UTC).
 */

/** A purpose row as the flow shows it to the person (spec, notice hash). */
export interface NoticePurpose {
  /** The purpose key (the flow's `key`). */
  name: string;
  label: string;
  description: string;
  /** Lawful basis the flow declares for it. */
  mechanism: LawfulBasis;
  required: boolean;
}

/** The wording the person was shown: exactly what the notice hash covers. */
export interface NoticeContent {
  /** BCP 47 locale of the wording, e.g. `en-GB`. */
  locale: string;
  title: string;
  description: string;
  /** Policy URL, or null when the flow declares none. */
  policy_url: string | null;
  /** Flow-visible purpose rows (order irrelevant: the hash sorts them by name). */
  purposes: NoticePurpose[];
}

/** A notice as versioned by its owner, e.g. `{ reference: 'flw_us_…@v3', content }`. */
export interface NoticeInput {
  /** Stable reference of the notice version (flow id and version). */
  reference: string;
  content: NoticeContent;
}

/** A party of the record (controller, processor, recipient, principal, agent…). */
export interface PartyInput {
  party_id: string;
  party_name: string;
  party_role: PartyRole;
  party_type?: PartyType;
  /** `display_name` when the name is the party's own display name; `declared` when the operator declared it. */
  provenance?: 'display_name' | 'declared';
  party_address?: string;
  party_email?: string;
  party_phone?: string;
  party_url?: string;
}

/** Who the record is about: an identified principal, or nobody (the record id stands in). */
export type PrincipalInput = { kind: 'identified'; pii_principal_id: string } | { kind: 'anonymous' };

/** Facts about processing that every record kind may state. All optional (absence rule). */
export interface ProcessingFacts {
  /** Declared jurisdiction; the document says `unspecified` when absent. */
  jurisdiction?: string;
  collection_method?: string;
  /** ISO 3166-1 alpha-2 countries where the data is stored. */
  storage_locations?: string[];
  /**
   * Recorded lawful-transfer bases. `processing_locations` is written from these and only when
   * at least one exists: a processing country is never listed without its basis.
   */
  lawful_transfers?: ProcessingLocation[];
  /** Stable, credential-free URL where the person can withdraw. */
  withdrawal_method?: string;
  /** Recipients' party ids: `[]` states nothing is shared; undefined means they cannot be enumerated. */
  recipient_third_parties?: string[];
  privacy_rights?: string[];
  /** Enforced capability identifiers. */
  processing_method?: string[];
  /** Legitimate-interest assessment reference. */
  impact_assessment?: string;
}

/**
 * Extension facts shared by consent and notice records: the schema's extensions without the
 * authorization-only ones and without `signature_evidence` (a consent record states it apart).
 */
export type CollectionFacts = Omit<
  ExtensionsSection,
  'grant_integrity' | 'delegation_chain_root' | 'capability_manifest' | 'signature_evidence'
>;

/** One purpose decision of a consent record. Declined purposes never reach the receipt's purposes. */
export interface PurposeDecisionInput {
  purpose_id: string;
  /** The label as shown at decision time (frozen). */
  label: string;
  decision: 'granted' | 'declined';
  lawful_basis?: LawfulBasis;
}

/** A consent record as consent-records freezes it (Record API, capture, hosted flow, import). */
export interface ConsentRecordInput {
  kind: 'consent_record';
  record_id: string;
  application_id: string;
  principal: PrincipalInput;
  notice: NoticeInput;
  /** URL of the notice version, when it has one. */
  notice_url?: string;
  decisions: PurposeDecisionInput[];
  /** When consent was given (the decision time). */
  given_at: string;
  /** ISO 8601 duration the consent stays valid; absent when it does not expire. */
  validity_duration?: string;
  /** Predecessor record id when this record re-affirms or replaces an earlier one. */
  record_reference?: string;
  /** `explicit` (an affirmative act, the default) or `implicit`. */
  event_type?: 'explicit' | 'implicit';
  parties: PartyInput[];
  processing: ProcessingFacts;
  collection: CollectionFacts;
  /** Pointer and digest of a captured signature (consent records only). */
  signature_evidence?: { pointer: string; digest: string };
}

/** A notice record: a notice shown (or disclosed by an agent) without a consent decision. */
export interface NoticeRecordInput {
  kind: 'notice_record';
  record_id: string;
  application_id: string;
  principal: PrincipalInput;
  notice: NoticeInput;
  notice_url?: string;
  /** Locale the notice was presented in (may differ from the notice's own). */
  language: string;
  shown_at: string;
  /** Who showed it (agent id, application id…): the event's `entity_id`. */
  shown_by: string;
  acknowledged_at?: string;
  parties: PartyInput[];
  processing: ProcessingFacts;
  collection: CollectionFacts;
}

/** Authority bounds as oap-authorizer stores them; each present exactly when enforced. */
export interface AuthorityBoundsInput {
  scope_bounds?: Record<string, unknown>;
  action_bounds?: Record<string, unknown>;
  value_bounds?: Record<string, unknown>;
  time_bounds?: Record<string, unknown>;
  escalation_bounds?: Record<string, unknown>;
  reputation_bounds?: Record<string, unknown>;
  jurisdiction_bounds?: Record<string, unknown>;
  /** Stored as `oap_sequence_bounds` on the grant; written as `sequence_bounds`. */
  sequence_bounds?: Record<string, unknown>;
}

/** An authority (a principal's standing delegation to an agent) as oap-authorizer freezes it. */
export interface AuthorityInput {
  kind: 'authorization_record';
  /** The authority id (`auth_<region>_…`), which is the record id. */
  record_id: string;
  application_id: string;
  pii_principal_id: string;
  /** Locale of the principal's interface when the authority was granted. */
  language: string;
  /** Declared purposes of use; empty when none were declared. */
  purposes: Array<{ purpose_id: string; label: string; lawful_basis?: LawfulBasis }>;
  bounds: AuthorityBoundsInput;
  valid_from?: string;
  /** Absent for an open-ended authority. */
  valid_until?: string;
  /** Activation delay in seconds; `cooling_off` is written only when it is above zero. */
  cooling_off_seconds?: number;
  /** Stable, credential-free URL where the principal can withdraw the authority. */
  withdrawal_method: string;
  /** When the authority was requested, if that happened apart from the grant. */
  requested_at?: string;
  granted_at: string;
  parties: PartyInput[];
  processing: ProcessingFacts;
  extensions?: Pick<
    ExtensionsSection,
    | 'scopes'
    | 'sensitive'
    | 'accountability_record'
    | 'grant_integrity'
    | 'delegation_chain_root'
    | 'capability_manifest'
    | 'captured_at'
    | 'recorded_at'
  >;
}

/**
 * A completed approval decision (a decision session of kind `approval` that is not an authority's
 * escalation), frozen as an `authorization_record`: a person authorized, refused or countered one
 * proposed action. It holds no bounds (none are enforced by the record) and no purposes.
 */
export interface ApprovalInput {
  kind: 'approval_record';
  /** `apr_` + the SHA-256 hex of the session token (the token itself is a capability, never written). */
  record_id: string;
  application_id: string;
  /** The principal's pseudonym; absent when the session named no principal (the record is anonymous). */
  pii_principal_id?: string;
  language: string;
  outcome: 'approved' | 'denied' | 'countered';
  decided_at: string;
  /** Credential-free URL the authority section requires (`withdrawal_method`). */
  withdrawal_method: string;
  parties: PartyInput[];
  processing: ProcessingFacts;
}

/** Anything a receipt can be frozen from. */
export type ReceiptInput = ConsentRecordInput | NoticeRecordInput | AuthorityInput | ApprovalInput;

/** Re-exported for callers building transitions. */
export type { EventChannel };
