import { receiptsError } from '../receipts.errors';
import type { CollectionFacts, PartyInput, ProcessingFacts } from './inputs';
import {
  RENDERED_CHANNELS,
  type ExtensionsSection,
  type PartySection,
  type PiiProcessingSection,
  type ReceiptPurpose,
} from './receipt-document';

/**
 * Copies only the members that are defined: the absence rule in one place. An undefined input
 * becomes an absent field, never `null` or a guessed default.
 */
export function definedOnly<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, member]) => member !== undefined)) as T;
}

/** Refuses an input the builder cannot turn into a truthful document (a caller bug, never user input). */
export function invalidInput(field: string, message: string): never {
  throw receiptsError('receipt_input_invalid', message, { field });
}

/** An ISO 8601 timestamp normalised to UTC with milliseconds; refuses anything unparseable. */
export function isoTime(value: string, field: string): string {
  const time = Date.parse(value);
  if (!/^\d{4}-\d{2}-\d{2}T/.test(value) || Number.isNaN(time)) invalidInput(field, `${field} must be an ISO 8601 timestamp`);
  return new Date(time).toISOString();
}

/** Seconds as an ISO 8601 duration (`PT90S`); used for cooling-off periods. */
export function secondsAsDuration(seconds: number): string {
  return `PT${Math.floor(seconds)}S`;
}

/** Parties in input order; optional members omitted when unknown. */
export function buildParties(parties: readonly PartyInput[]): PartySection[] {
  if (parties.length === 0) invalidInput('parties', 'A record names at least its controller');
  return parties.map((p) =>
    definedOnly<PartySection>({
      party_id: p.party_id,
      party_name: p.party_name,
      party_role: p.party_role,
      party_type: p.party_type,
      provenance: p.provenance,
      party_address: p.party_address,
      party_email: p.party_email,
      party_phone: p.party_phone,
      party_url: p.party_url,
    }),
  );
}

/** The pii_processing section from facts; `jurisdiction` is `unspecified` when none was declared. */
export function buildPiiProcessing(
  language: string,
  purposes: ReceiptPurpose[],
  facts: ProcessingFacts,
  notice?: { reference: string; hash: string; url?: string },
): PiiProcessingSection {
  const transfers = facts.lawful_transfers ?? [];
  for (const [index, transfer] of transfers.entries()) {
    if (!transfer.transfer_basis)
      invalidInput(
        `processing.lawful_transfers[${index}].transfer_basis`,
        'A processing location needs its recorded lawful-transfer basis',
      );
  }
  return definedOnly<PiiProcessingSection>({
    language,
    jurisdiction: facts.jurisdiction ?? 'unspecified',
    privacy_notice: notice ? definedOnly({ reference: notice.reference, hash: notice.hash, url: notice.url }) : undefined,
    collection_method: facts.collection_method,
    purposes,
    storage_locations: facts.storage_locations?.length ? [...facts.storage_locations] : undefined,
    // Only when recorded lawful-transfer bases exist (spec): an empty list is omitted, not written.
    processing_locations: transfers.length ? transfers.map((t) => definedOnly({ ...t })) : undefined,
    withdrawal_method: facts.withdrawal_method,
    // [] is a statement ("nothing shared") and is kept; undefined ("cannot enumerate") is omitted.
    recipient_third_parties: facts.recipient_third_parties ? [...facts.recipient_third_parties] : undefined,
    privacy_rights: facts.privacy_rights?.length ? [...facts.privacy_rights] : undefined,
    processing_method: facts.processing_method?.length ? [...facts.processing_method] : undefined,
    impact_assessment: facts.impact_assessment,
  });
}

/** Extensions of consent and notice records; refuses rendering evidence from a channel that renders nothing. */
export function buildCollectionExtensions(facts: CollectionFacts, extra: Partial<ExtensionsSection> = {}): ExtensionsSection | undefined {
  if (facts.rendering_evidence && !(facts.collection_channel && RENDERED_CHANNELS.includes(facts.collection_channel))) {
    invalidInput(
      'collection.rendering_evidence',
      'rendering_evidence exists only for the embedded_field and embedded_field_browser channels',
    );
  }
  const section = definedOnly<ExtensionsSection>({
    collection_mechanism: facts.collection_mechanism,
    delivery_mode: facts.delivery_mode,
    scopes: facts.scopes?.length ? [...facts.scopes] : undefined,
    sensitive: facts.sensitive,
    consent_flow_id: facts.consent_flow_id,
    accountability_record: facts.accountability_record,
    agent_disclosures: facts.agent_disclosures?.length ? facts.agent_disclosures.map((d) => definedOnly({ ...d })) : undefined,
    collection_channel: facts.collection_channel,
    collection_platform: facts.collection_platform,
    wording_drift: facts.wording_drift ? definedOnly({ ...facts.wording_drift }) : undefined,
    captured_at: facts.captured_at ? isoTime(facts.captured_at, 'collection.captured_at') : undefined,
    recorded_at: facts.recorded_at ? isoTime(facts.recorded_at, 'collection.recorded_at') : undefined,
    presentation_attested: facts.presentation_attested?.length ? [...facts.presentation_attested] : undefined,
    rendering_evidence: facts.rendering_evidence ? definedOnly({ ...facts.rendering_evidence }) : undefined,
    ...extra,
  });
  return Object.keys(section).length ? section : undefined;
}
