import { sha256Hex } from '@svc/crypto';
import type { ReceiptStatus } from '../events/project-events';
import { receiptsError } from '../receipts.errors';
import type { LawfulBasis, PartyRole, ReceiptDocument } from '../record/receipt-document';
import { RECEIPT_SCHEMA_ID } from '../schema/published-schema';
import { canonicalReceiptBytes } from './canonical';

/** W3C Data Privacy Vocabulary namespaces used by the mapping. */
export const DPV_CONTEXT = {
  dpv: 'https://w3id.org/dpv#',
  loc: 'https://w3id.org/dpv/loc#',
  dct: 'http://purl.org/dc/terms/',
  xsd: 'http://www.w3.org/2001/XMLSchema#',
  svc: `${RECEIPT_SCHEMA_ID}#`,
  /** The source svc-cr/2.13 document, embedded as a JSON literal (JSON-LD 1.1 `@json`). */
  record: { '@id': 'svc:record', '@type': '@json' },
} as const;

const LEGAL_BASIS: Record<LawfulBasis, string> = {
  consent: 'dpv:Consent',
  contract: 'dpv:Contract',
  legal_obligation: 'dpv:LegalObligation',
  vital_interest: 'dpv:VitalInterest',
  public_task: 'dpv:PublicTask',
  legitimate_interest: 'dpv:LegitimateInterest',
};

const PARTY_PROPERTY: Record<PartyRole, string> = {
  controller: 'dpv:hasDataController',
  processor: 'dpv:hasDataProcessor',
  supervisory_authority: 'dpv:hasAuthority',
  recipient: 'dpv:hasRecipient',
  principal: 'dpv:hasDataSubject',
  agent: 'dpv:hasRepresentative',
};

const PARTY_CLASS: Record<PartyRole, string> = {
  controller: 'dpv:DataController',
  processor: 'dpv:DataProcessor',
  supervisory_authority: 'dpv:SupervisoryAuthority',
  recipient: 'dpv:Recipient',
  principal: 'dpv:DataSubject',
  agent: 'dpv:Representative',
};

const CONSENT_STATUS: Partial<Record<ReceiptStatus, string>> = {
  active: 'dpv:ConsentGiven',
  partially_withdrawn: 'dpv:ConsentGiven',
  withdrawn: 'dpv:ConsentWithdrawn',
  expired: 'dpv:ConsentExpired',
  declined: 'dpv:ConsentRefused',
};

const urn = (kind: string, id: string): string => `urn:svc:${kind}:${encodeURIComponent(id)}`;

/**
 * True for an authorization record that declares no purpose of processing: DPV describes personal
 * data handling, and such a record holds only agent bounds, which DPV has no terms for.
 */
export function isPureAuthority(document: ReceiptDocument): boolean {
  return document.record.record_type === 'authorization_record' && document.pii_processing.purposes.length === 0;
}

/**
 * The `dpv` flavor: a JSON-LD rendering of the document in the W3C Data Privacy Vocabulary
 * (consent records as `dpv:ConsentRecord`, notices as `dpv:PrivacyNotice` handling, authorities
 * with purposes as `dpv:PersonalDataHandling`). Only what the document states is mapped (absence
 * rule). The source document itself rides along as the JSON literal `record` (so the flavor
 * still validates against the published schema), and `svc:canonicalSha256` is its canonical hash.
 * Throws `dpv_unavailable` (422) for a pure-authority record.
 */
export function dpvReceipt(document: ReceiptDocument, status: ReceiptStatus): Record<string, unknown> {
  if (isPureAuthority(document)) {
    throw receiptsError('dpv_unavailable', 'A pure-authority record has no DPV mapping; use the canonical or signed flavor', {
      record_type: 'authorization_record',
    });
  }
  const { record, pii_processing: pii } = document;
  const type = record.record_type === 'consent_record' ? 'dpv:ConsentRecord' : 'dpv:PersonalDataHandling';
  const graph: Record<string, unknown> = {
    '@context': DPV_CONTEXT,
    '@id': urn('record', record.record_id),
    '@type': type,
    'dct:identifier': record.record_id,
    'dct:conformsTo': record.conforms_to,
    'svc:schemaVersion': record.schema_version,
    'svc:recordType': record.record_type,
    'svc:canonicalSha256': sha256Hex(canonicalReceiptBytes(document)),
    'dct:language': pii.language,
    'svc:status': status,
  };
  if (pii.jurisdiction !== 'unspecified') graph['dpv:hasJurisdiction'] = { '@id': `loc:${pii.jurisdiction}` };
  if (record.pii_principal_id)
    graph['dpv:hasDataSubject'] = { '@id': urn('principal', record.pii_principal_id), '@type': 'dpv:DataSubject' };
  for (const party of document.party_identification) {
    if (party.party_role === 'principal' && graph['dpv:hasDataSubject']) continue;
    const property = PARTY_PROPERTY[party.party_role];
    const node = { '@id': urn('party', party.party_id), '@type': PARTY_CLASS[party.party_role], 'dct:title': party.party_name };
    graph[property] = [...((graph[property] as unknown[] | undefined) ?? []), node];
  }
  graph['dpv:hasPurpose'] = pii.purposes.map((p) => ({
    '@id': urn('purpose', p.purpose_id),
    '@type': 'dpv:Purpose',
    'dct:description': p.label,
    ...(p.lawful_basis ? { 'dpv:hasLegalBasis': { '@id': LEGAL_BASIS[p.lawful_basis] } } : {}),
  }));
  if (record.record_type === 'consent_record' && CONSENT_STATUS[status]) graph['dpv:hasConsentStatus'] = { '@id': CONSENT_STATUS[status] };
  if (pii.privacy_notice) {
    graph['dpv:hasNotice'] = {
      '@id': urn('notice', pii.privacy_notice.reference),
      '@type': 'dpv:PrivacyNotice',
      'svc:noticeSha256': pii.privacy_notice.hash,
      ...(pii.privacy_notice.url ? { 'dct:source': { '@id': pii.privacy_notice.url } } : {}),
    };
  }
  if (pii.storage_locations)
    graph['dpv:hasStorageCondition'] = pii.storage_locations.map((c) => ({
      '@type': 'dpv:StorageLocation',
      'dpv:hasLocation': { '@id': `loc:${c}` },
    }));
  if (pii.processing_locations) {
    graph['dpv:hasDataTransfer'] = pii.processing_locations.map((l) => ({
      '@type': 'dpv:DataTransfer',
      'dpv:hasLocation': { '@id': `loc:${l.country}` },
      'dpv:hasLegalBasis': { 'dct:identifier': l.transfer_basis },
    }));
  }
  if (pii.recipient_third_parties)
    graph['dpv:hasRecipientThirdParty'] = pii.recipient_third_parties.map((id) => ({ '@id': urn('party', id), '@type': 'dpv:ThirdParty' }));
  if (pii.privacy_rights) graph['dpv:hasRight'] = pii.privacy_rights.map((r) => ({ 'dct:identifier': r, '@type': 'dpv:DataSubjectRight' }));
  if (pii.withdrawal_method) graph['dpv:hasWithdrawalMethod'] = { '@id': pii.withdrawal_method };
  if (pii.impact_assessment)
    graph['dpv:hasImpactAssessment'] = { 'dct:identifier': pii.impact_assessment, '@type': 'dpv:LegitimateInterestAssessment' };
  graph['svc:event'] = document.event.map((e) => ({
    'dct:date': { '@value': e.event_time, '@type': 'xsd:dateTime' },
    'svc:eventState': e.event_state,
    'svc:eventType': e.event_type,
    'svc:entity': e.entity_id,
    ...(e.purpose_id ? { 'dpv:hasPurpose': { '@id': urn('purpose', e.purpose_id) } } : {}),
    ...(e.validity_duration ? { 'dpv:hasDuration': { '@value': e.validity_duration, '@type': 'xsd:duration' } } : {}),
  }));
  graph.record = document;
  return graph;
}
