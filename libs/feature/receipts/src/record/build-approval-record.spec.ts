import { projectReceipt } from '../events/project-events';
import { validateReceiptDocument } from '../schema/published-schema';
import { buildApprovalRecord } from './build-approval-record';
import { buildReceipt } from './build-receipt';
import type { ApprovalInput } from './inputs';

const RECORD_ID = `apr_${'a'.repeat(64)}`;

function approvalInput(overrides: Partial<ApprovalInput> = {}): ApprovalInput {
  return {
    kind: 'approval_record',
    record_id: RECORD_ID,
    application_id: 'app_us_aaaaaaaaaaaaaaaaaaaa',
    pii_principal_id: 'psn_principal',
    language: 'und',
    outcome: 'approved',
    decided_at: '2026-05-01T10:00:00+02:00',
    withdrawal_method: 'https://us.example/inbox',
    parties: [
      {
        party_id: 'app_us_aaaaaaaaaaaaaaaaaaaa',
        party_name: 'Acme',
        party_role: 'controller',
        party_type: 'organization',
        provenance: 'display_name',
      },
    ],
    processing: {},
    ...overrides,
  };
}

/** Spec: What the service does 4 — a completed approval decision's receipt is an authorization record. */
describe('approval decision records', () => {
  it.each([
    ['approved', 'approval granted'],
    ['denied', 'approval denied'],
    ['countered', 'approval countered'],
  ] as const)('%s: one "%s" row by the principal at the decision time, status %s; validates against the schema', (outcome, state) => {
    const document = buildReceipt(approvalInput({ outcome }));
    expect(validateReceiptDocument(document)).toEqual({ valid: true });
    expect(document.record).toEqual({
      schema_version: 'svc-cr/2.13',
      conforms_to: 'ISO/IEC TS 27560:2023',
      record_id: RECORD_ID,
      record_type: 'authorization_record',
      pii_principal_id: 'psn_principal',
    });
    expect(document.event).toEqual([
      {
        event_time: '2026-05-01T08:00:00.000Z',
        entity_id: 'psn_principal',
        event_type: 'explicit',
        event_state: state,
        approval_id: RECORD_ID,
      },
    ]);
    expect(document.authority).toEqual({ withdrawal_method: 'https://us.example/inbox' });
    expect(document.pii_processing.purposes).toEqual([]);
    expect(projectReceipt(document, [], new Date('2027-01-01T00:00:00Z')).status).toBe(outcome);
  });

  it('an approval that named no principal is anonymous: its record id stands in for the principal', () => {
    const document = buildApprovalRecord(approvalInput({ pii_principal_id: undefined }));
    expect(validateReceiptDocument(document)).toEqual({ valid: true });
    expect(document.record).toMatchObject({ anonymous: true });
    expect(document.record).not.toHaveProperty('pii_principal_id');
    expect(document.event[0]).toMatchObject({ entity_id: RECORD_ID });
  });

  it('refuses a decision time that is not ISO 8601', () => {
    expect(() => buildApprovalRecord(approvalInput({ decided_at: 'yesterday' }))).toThrow(
      expect.objectContaining({ code: 'receipt_input_invalid' }),
    );
  });
});
