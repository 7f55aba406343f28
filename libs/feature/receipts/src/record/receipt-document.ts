/**
 * The `svc-cr/2.13` document (spec, Durable receipt schema), as TypeScript. The JSON Schema in
 * `schema/svc-cr-2.13.schema.json` is the normative form; these types mirror it. Optional members
 * follow the absence rule: omitted when the platform cannot state them truthfully.
 */
import { COLLECTION_CHANNELS, EVENT_CHANNELS, type CollectionChannel, type EventChannel } from '@svc/contracts';

/** The three record kinds (spec, What the service does 4). */
export const RECORD_TYPES = ['consent_record', 'notice_record', 'authorization_record'] as const;
export type RecordType = (typeof RECORD_TYPES)[number];

export { COLLECTION_CHANNELS, EVENT_CHANNELS, type CollectionChannel, type EventChannel };

/** Channels whose receipts carry `rendering_evidence` (and the only ones that may). */
export const RENDERED_CHANNELS: readonly CollectionChannel[] = ['embedded_field', 'embedded_field_browser'];

export const PARTY_ROLES = ['controller', 'processor', 'supervisory_authority', 'recipient', 'principal', 'agent'] as const;
export type PartyRole = (typeof PARTY_ROLES)[number];
export const PARTY_TYPES = ['organization', 'natural_person', 'software_agent'] as const;
export type PartyType = (typeof PARTY_TYPES)[number];

/** Lawful bases a purpose may rest on (GDPR Art. 6(1)), as flows declare them. */
export const LAWFUL_BASES = ['consent', 'contract', 'legal_obligation', 'vital_interest', 'public_task', 'legitimate_interest'] as const;
export type LawfulBasis = (typeof LAWFUL_BASES)[number];

export interface RecordSection {
  schema_version: 'svc-cr/2.13';
  conforms_to: 'ISO/IEC TS 27560:2023';
  record_id: string;
  record_type: RecordType;
  anonymous?: true;
  pii_principal_id?: string;
}

export interface PrivacyNoticeRef {
  reference: string;
  /** SHA-256 hex of the notice's canonical JSON (see `noticeHash`). */
  hash: string;
  url?: string;
}

export interface ReceiptPurpose {
  purpose_id: string;
  label: string;
  lawful_basis?: LawfulBasis;
}

export interface ProcessingLocation {
  country: string;
  transfer_basis: string;
  transfer_register_id?: string;
}

export interface PiiProcessingSection {
  language: string;
  jurisdiction: string;
  privacy_notice?: PrivacyNoticeRef;
  collection_method?: string;
  purposes: ReceiptPurpose[];
  storage_locations?: string[];
  processing_locations?: ProcessingLocation[];
  withdrawal_method?: string;
  recipient_third_parties?: string[];
  privacy_rights?: string[];
  processing_method?: string[];
  impact_assessment?: string;
}

export interface PartySection {
  party_id: string;
  party_name: string;
  party_role: PartyRole;
  party_type?: PartyType;
  provenance?: 'display_name' | 'declared';
  party_address?: string;
  party_email?: string;
  party_phone?: string;
  party_url?: string;
}

export interface AuthoritySection {
  scope_bounds?: Record<string, unknown>;
  action_bounds?: Record<string, unknown>;
  value_bounds?: Record<string, unknown>;
  time_bounds?: Record<string, unknown>;
  escalation_bounds?: Record<string, unknown>;
  reputation_bounds?: Record<string, unknown>;
  jurisdiction_bounds?: Record<string, unknown>;
  sequence_bounds?: Record<string, unknown>;
  valid_from?: string;
  valid_until?: string;
  cooling_off?: string;
  withdrawal_method: string;
}

/** Event states of the spec ("Captured consent and receipts"), spelled as the spec spells them. */
export const EVENT_STATES = [
  'notice shown',
  'notice acknowledged',
  'consent requested',
  'consent given',
  'consent refused',
  'consent withdrawn',
  'consent expired',
  'objection recorded',
  'authority requested',
  'authority granted',
  'authority exercised',
  'authority suspended',
  'authority resumed',
  'authority revoked',
  'authority expired',
  'approval requested',
  'approval granted',
  'approval denied',
  'approval countered',
] as const;
export type EventState = (typeof EVENT_STATES)[number];

export const EVENT_TYPES = ['explicit', 'implicit', 'regular'] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export interface EventRow {
  event_time: string;
  validity_duration?: string;
  entity_id: string;
  event_type: EventType;
  event_state: EventState;
  purpose_id?: string;
  record_reference?: string;
  occurrences?: number;
  approval_id?: string;
  /** A delegate made this withdrawal for the principal (the row's `entity_id`). */
  acted_by?: { delegate_id: string; delegation_grant_id: string; delegation_type: string };
  event_channel?: EventChannel;
}

export interface AgentDisclosure {
  agent_id: string;
  flow_id?: string;
  disclosed_at: string;
  notice_hash?: string;
  /** Who states the disclosure happened; disclosure receipts are always `operator_declared`. */
  provenance: 'operator_declared' | 'platform_delivered';
}

export interface ExtensionsSection {
  collection_mechanism?: string;
  delivery_mode?: 'redirect' | 'embed' | 'popup' | 'link';
  scopes?: string[];
  sensitive?: boolean;
  consent_flow_id?: string;
  grant_integrity?: { content_sha256: string; key_versions: string[] };
  delegation_chain_root?: string;
  capability_manifest?: { version: string; sha256: string };
  accountability_record?: string;
  agent_disclosures?: AgentDisclosure[];
  signature_evidence?: { pointer: string; digest: string };
  collection_channel?: CollectionChannel;
  collection_platform?: string;
  wording_drift?: { detected: boolean; presented_hash?: string };
  captured_at?: string;
  recorded_at?: string;
  presentation_attested?: string[];
  rendering_evidence?: { digest: string; pointer?: string; rendered_at?: string };
}

/** A complete `svc-cr/2.13` document. */
export interface ReceiptDocument {
  record: RecordSection;
  pii_processing: PiiProcessingSection;
  party_identification: PartySection[];
  authority?: AuthoritySection;
  event: EventRow[];
  extensions?: ExtensionsSection;
}
