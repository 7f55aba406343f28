import { buildCollectionExtensions, buildParties, buildPiiProcessing, definedOnly, invalidInput, isoTime } from './build-common';
import type { NoticeRecordInput } from './inputs';
import { noticeHash } from './notice-hash';
import type { EventRow, ReceiptDocument, RecordSection } from './receipt-document';
import { RECEIPT_CONFORMS_TO, RECEIPT_SCHEMA_VERSION } from './versions';

/**
 * Builds the frozen `notice_record` document: a notice was shown (and possibly acknowledged), no
 * consent was decided, so `purposes` (granted purposes only) is empty. Frozen events: `notice
 * shown` by `shown_by`, then `notice acknowledged` when an acknowledgement is known.
 */
export function buildNoticeRecord(input: NoticeRecordInput): ReceiptDocument {
  if (input.principal.kind === 'identified' && !input.principal.pii_principal_id)
    invalidInput('principal.pii_principal_id', 'An identified record needs its principal id');
  const record = definedOnly<RecordSection>({
    schema_version: RECEIPT_SCHEMA_VERSION,
    conforms_to: RECEIPT_CONFORMS_TO,
    record_id: input.record_id,
    record_type: 'notice_record',
    anonymous: input.principal.kind === 'anonymous' ? true : undefined,
    pii_principal_id: input.principal.kind === 'identified' ? input.principal.pii_principal_id : undefined,
  });
  const events: EventRow[] = [
    { event_time: isoTime(input.shown_at, 'shown_at'), entity_id: input.shown_by, event_type: 'explicit', event_state: 'notice shown' },
  ];
  if (input.acknowledged_at) {
    const entity = input.principal.kind === 'identified' ? input.principal.pii_principal_id : input.record_id;
    events.push({
      event_time: isoTime(input.acknowledged_at, 'acknowledged_at'),
      entity_id: entity,
      event_type: 'explicit',
      event_state: 'notice acknowledged',
    });
  }
  return definedOnly<ReceiptDocument>({
    record,
    pii_processing: buildPiiProcessing(input.language, [], input.processing, {
      reference: input.notice.reference,
      hash: noticeHash(input.notice.content),
      url: input.notice_url,
    }),
    party_identification: buildParties(input.parties),
    event: events,
    extensions: buildCollectionExtensions(input.collection),
  });
}
