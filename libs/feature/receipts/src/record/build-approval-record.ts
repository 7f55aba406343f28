import { buildParties, buildPiiProcessing, definedOnly, invalidInput, isoTime } from './build-common';
import type { ApprovalInput } from './inputs';
import type { EventState, ReceiptDocument } from './receipt-document';
import { RECEIPT_CONFORMS_TO, RECEIPT_SCHEMA_VERSION } from './versions';

/** The event state each approval outcome is written as. */
export const APPROVAL_OUTCOME_STATES: Readonly<Record<ApprovalInput['outcome'], EventState>> = {
  approved: 'approval granted',
  denied: 'approval denied',
  countered: 'approval countered',
};

/**
 * Builds the frozen `authorization_record` of a completed approval decision: one event row, the
 * outcome, at the decision time, by the principal (its pseudonym, or the record id standing in for
 * an anonymous principal), with the record id as `approval_id`. No bounds, no validity window and
 * no purposes are stated: an approval records one decision, not a standing delegation.
 */
export function buildApprovalRecord(input: ApprovalInput): ReceiptDocument {
  const state = APPROVAL_OUTCOME_STATES[input.outcome];
  if (!state) invalidInput('outcome', 'An approval record states an approved, denied or countered outcome');
  const decidedAt = isoTime(input.decided_at, 'decided_at');
  const principal = input.pii_principal_id;
  return definedOnly<ReceiptDocument>({
    record: definedOnly({
      schema_version: RECEIPT_SCHEMA_VERSION,
      conforms_to: RECEIPT_CONFORMS_TO,
      record_id: input.record_id,
      record_type: 'authorization_record' as const,
      anonymous: principal ? undefined : (true as const),
      pii_principal_id: principal,
    }),
    pii_processing: buildPiiProcessing(input.language, [], input.processing),
    party_identification: buildParties(input.parties),
    authority: { withdrawal_method: input.withdrawal_method },
    event: [
      {
        event_time: decidedAt,
        entity_id: principal ?? input.record_id,
        event_type: 'explicit',
        event_state: state,
        approval_id: input.record_id,
      },
    ],
  });
}
