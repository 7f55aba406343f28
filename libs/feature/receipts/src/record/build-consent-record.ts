import { buildCollectionExtensions, buildParties, buildPiiProcessing, definedOnly, invalidInput, isoTime } from './build-common';
import type { ConsentRecordInput } from './inputs';
import { noticeHash } from './notice-hash';
import { RECEIPT_CONFORMS_TO, RECEIPT_SCHEMA_VERSION } from './versions';
import type { EventRow, ReceiptDocument, RecordSection } from './receipt-document';

/**
 * Builds the frozen `consent_record` document. Purposes are the granted ones only, with the labels
 * shown at decision time. The decision itself is the single frozen event: `consent given` (with
 * `validity_duration` when the consent expires and `record_reference` when it re-affirms an earlier
 * record) — or, when every purpose was declined, `notice acknowledged`: the platform issues no
 * `consent refused` (spec: defined but unissued) and never claims a consent nobody gave.
 */
export function buildConsentRecord(input: ConsentRecordInput): ReceiptDocument {
  const anonymous = input.principal.kind === 'anonymous';
  const record = definedOnly<RecordSection>({
    schema_version: RECEIPT_SCHEMA_VERSION,
    conforms_to: RECEIPT_CONFORMS_TO,
    record_id: input.record_id,
    record_type: 'consent_record',
    anonymous: anonymous ? true : undefined,
    pii_principal_id: input.principal.kind === 'identified' ? input.principal.pii_principal_id : undefined,
  });
  if (input.principal.kind === 'identified' && !input.principal.pii_principal_id)
    invalidInput('principal.pii_principal_id', 'An identified record needs its principal id');
  const seen = new Set<string>();
  for (const decision of input.decisions) {
    if (seen.has(decision.purpose_id)) invalidInput('decisions', `Purpose ${decision.purpose_id} is decided twice`);
    seen.add(decision.purpose_id);
  }
  const granted = input.decisions.filter((d) => d.decision === 'granted');
  const purposes = granted.map((d) => definedOnly({ purpose_id: d.purpose_id, label: d.label, lawful_basis: d.lawful_basis }));
  // On an anonymous record the record id stands in for the principal, also as the acting entity.
  const entity = input.principal.kind === 'identified' ? input.principal.pii_principal_id : input.record_id;
  const decided: EventRow = granted.length
    ? definedOnly<EventRow>({
        event_time: isoTime(input.given_at, 'given_at'),
        validity_duration: input.validity_duration,
        entity_id: entity,
        event_type: input.event_type ?? 'explicit',
        event_state: 'consent given',
        record_reference: input.record_reference,
      })
    : {
        event_time: isoTime(input.given_at, 'given_at'),
        entity_id: entity,
        event_type: input.event_type ?? 'explicit',
        event_state: 'notice acknowledged',
      };
  return definedOnly<ReceiptDocument>({
    record,
    pii_processing: buildPiiProcessing(input.notice.content.locale, purposes, input.processing, {
      reference: input.notice.reference,
      hash: noticeHash(input.notice.content),
      url: input.notice_url,
    }),
    party_identification: buildParties(input.parties),
    event: [decided],
    extensions: buildCollectionExtensions(input.collection, {
      signature_evidence: input.signature_evidence ? { ...input.signature_evidence } : undefined,
    }),
  });
}
