import { authorityInput, consentInput, noticeInput } from '../../test/receipt-fixtures';
import { buildAuthorizationRecord } from '../record/build-authorization-record';
import { buildConsentRecord } from '../record/build-consent-record';
import { buildNoticeRecord } from '../record/build-notice-record';
import { validateReceiptDocument } from '../schema/published-schema';
import { addIsoDuration } from './iso-duration';
import { projectReceipt } from './project-events';
import type { ReceiptTransition } from './transitions';

const at = (iso: string) => new Date(iso);
const states = (rows: ReadonlyArray<{ event_state: string }>) => rows.map((r) => r.event_state);

/** Spec: Captured consent and receipts — frozen record, appended transitions, derived status. */
describe('event projection', () => {
  describe('consent records', () => {
    const frozen = buildConsentRecord(consentInput());

    it('an untouched record is active and renders its frozen rows only', () => {
      const projection = projectReceipt(frozen, [], at('2026-03-01T00:00:00Z'));
      expect(projection.status).toBe('active');
      expect(projection.document).toEqual(frozen);
    });

    it('a whole withdrawal appends consent withdrawn with its channel and makes the status withdrawn', () => {
      const projection = projectReceipt(
        frozen,
        [{ type: 'consent_withdrawn', at: '2026-02-01T00:00:00Z', channel: 'receipt_link' }],
        at('2026-03-01T00:00:00Z'),
      );
      expect(projection.document.event.at(-1)).toEqual({
        event_time: '2026-02-01T00:00:00.000Z',
        entity_id: 'subj_9f2c',
        event_type: 'explicit',
        event_state: 'consent withdrawn',
        event_channel: 'receipt_link',
      });
      expect(projection.status).toBe('withdrawn');
      expect(validateReceiptDocument(projection.document)).toEqual({ valid: true });
    });

    it('a withdrawal by purpose carries purpose_id; partially withdrawn until every granted purpose is', () => {
      const one: ReceiptTransition[] = [
        { type: 'consent_withdrawn', at: '2026-02-01T00:00:00Z', purpose_id: 'marketing', channel: 'newer_record' },
      ];
      const partial = projectReceipt(frozen, one, at('2026-03-01T00:00:00Z'));
      expect(partial.document.event.at(-1)).toMatchObject({
        event_state: 'consent withdrawn',
        purpose_id: 'marketing',
        event_channel: 'newer_record',
      });
      expect(partial.status).toBe('partially_withdrawn');
      expect(partial.withdrawnPurposes).toEqual(['marketing']);
      const both = projectReceipt(
        frozen,
        [...one, { type: 'consent_withdrawn', at: '2026-02-02T00:00:00Z', purpose_id: 'analytics' }],
        at('2026-03-01T00:00:00Z'),
      );
      expect(both.status).toBe('withdrawn');
      expect(validateReceiptDocument(both.document)).toEqual({ valid: true });
    });

    it('expiry is derived at the end of validity_duration (end_of_term), without being stored', () => {
      const before = projectReceipt(frozen, [], at('2026-12-31T23:59:59Z'));
      expect(before.status).toBe('active');
      const after = projectReceipt(frozen, [], at('2027-01-01T10:00:00Z'));
      expect(after.document.event.at(-1)).toEqual({
        event_time: '2027-01-01T10:00:00.000Z',
        entity_id: 'subj_9f2c',
        event_type: 'regular',
        event_state: 'consent expired',
        event_channel: 'end_of_term',
      });
      expect(after.status).toBe('expired');
      expect(validateReceiptDocument(after.document)).toEqual({ valid: true });
    });

    it('no derived expiry after a whole withdrawal; the first terminal event decides the status', () => {
      const projection = projectReceipt(frozen, [{ type: 'consent_withdrawn', at: '2026-06-01T00:00:00Z' }], at('2028-01-01T00:00:00Z'));
      expect(states(projection.document.event)).toEqual(['consent given', 'consent withdrawn']);
      expect(projection.status).toBe('withdrawn');
    });

    it('a record with nothing granted is declined; an objection by purpose is rendered', () => {
      const declined = buildConsentRecord(consentInput({ decisions: [{ purpose_id: 'marketing', label: 'M', decision: 'declined' }] }));
      expect(projectReceipt(declined, [], at('2026-03-01T00:00:00Z')).status).toBe('declined');
      const objected = projectReceipt(
        frozen,
        [{ type: 'objection_recorded', at: '2026-02-01T00:00:00Z', purpose_id: 'analytics', channel: 'own_records' }],
        at('2026-03-01T00:00:00Z'),
      );
      expect(objected.document.event.at(-1)).toMatchObject({ event_state: 'objection recorded', purpose_id: 'analytics' });
      expect(validateReceiptDocument(objected.document)).toEqual({ valid: true });
      // An objection stops the purpose as a withdrawal does (a data subject request, Art. 21).
      expect(objected.status).toBe('partially_withdrawn');
      expect(objected.withdrawnPurposes).toEqual(['analytics']);
    });

    it('never rewrites the frozen document and keeps frozen rows first', () => {
      const snapshot = structuredClone(frozen);
      const projection = projectReceipt(frozen, [{ type: 'consent_withdrawn', at: '2025-06-01T00:00:00Z' }], at('2026-03-01T00:00:00Z'));
      expect(frozen).toEqual(snapshot);
      expect(projection.document.event[0]).toEqual(frozen.event[0]);
    });

    it('does not show transitions dated after now', () => {
      const projection = projectReceipt(frozen, [{ type: 'consent_withdrawn', at: '2026-05-01T00:00:00Z' }], at('2026-03-01T00:00:00Z'));
      expect(projection.status).toBe('active');
    });
  });

  describe('authorization records', () => {
    const frozen = buildAuthorizationRecord(authorityInput());
    const now = at('2026-03-01T00:00:00Z');

    it('suspended then resumed: both rows appended, status back to active', () => {
      const suspended = projectReceipt(frozen, [{ type: 'authority_suspended', at: '2026-02-01T00:00:00Z' }], now);
      expect(suspended.status).toBe('suspended');
      const resumed = projectReceipt(
        frozen,
        [
          { type: 'authority_suspended', at: '2026-02-01T00:00:00Z' },
          { type: 'authority_resumed', at: '2026-02-02T00:00:00Z' },
        ],
        now,
      );
      expect(states(resumed.document.event)).toEqual(['authority granted', 'authority suspended', 'authority resumed']);
      expect(resumed.status).toBe('active');
    });

    it('revoked: status revoked, and authority expired is suppressed after the revocation', () => {
      const transitions: ReceiptTransition[] = [
        { type: 'authority_revoked', at: '2026-02-01T00:00:00Z', channel: 'organisation' },
        { type: 'authority_expired', at: '2026-07-01T00:00:00Z' },
      ];
      const projection = projectReceipt(frozen, transitions, at('2026-08-01T00:00:00Z'));
      expect(states(projection.document.event)).toEqual(['authority granted', 'authority revoked']);
      expect(projection.status).toBe('revoked');
      expect(validateReceiptDocument(projection.document)).toEqual({ valid: true });
    });

    it('expires at valid_until (derived), and not while still valid', () => {
      expect(projectReceipt(frozen, [], now).status).toBe('active');
      const expired = projectReceipt(frozen, [], at('2026-07-01T00:00:00Z'));
      expect(expired.document.event.at(-1)).toEqual({
        event_time: '2026-07-01T00:00:00.000Z',
        entity_id: 'subj_9f2c',
        event_type: 'regular',
        event_state: 'authority expired',
      });
      expect(expired.status).toBe('expired');
    });

    it('a recorded expiry is not doubled by the derived one; an open-ended authority never expires', () => {
      const recorded = projectReceipt(frozen, [{ type: 'authority_expired', at: '2026-07-01T00:00:00Z' }], at('2026-08-01T00:00:00Z'));
      expect(states(recorded.document.event).filter((s) => s === 'authority expired')).toHaveLength(1);
      const open = buildAuthorizationRecord(authorityInput({ valid_until: undefined }));
      expect(projectReceipt(open, [], at('2040-01-01T00:00:00Z')).status).toBe('active');
    });

    it('approvals and aggregated exercises are appended without changing the status', () => {
      const transitions: ReceiptTransition[] = [
        { type: 'approval_requested', at: '2026-02-01T00:00:00Z', approval_id: 'appr_1', entity_id: 'agent_us_aaaaaaaaaaaaaaaaaaaa' },
        { type: 'approval_countered', at: '2026-02-01T00:01:00Z', approval_id: 'appr_1' },
        { type: 'approval_granted', at: '2026-02-01T00:02:00Z', approval_id: 'appr_1' },
        { type: 'approval_denied', at: '2026-02-01T00:03:00Z', approval_id: 'appr_2' },
        { type: 'authority_exercised', at: '2026-02-02T00:00:00Z', occurrences: 7, entity_id: 'agent_us_aaaaaaaaaaaaaaaaaaaa' },
      ];
      const projection = projectReceipt(frozen, transitions, now);
      expect(states(projection.document.event)).toEqual([
        'authority granted',
        'approval requested',
        'approval countered',
        'approval granted',
        'approval denied',
        'authority exercised',
      ]);
      expect(projection.document.event[1]).toMatchObject({ approval_id: 'appr_1', entity_id: 'agent_us_aaaaaaaaaaaaaaaaaaaa' });
      expect(projection.document.event.at(-1)).toMatchObject({ occurrences: 7 });
      expect(projection.status).toBe('active');
      expect(validateReceiptDocument(projection.document)).toEqual({ valid: true });
    });

    it('pending before valid_from plus cooling-off', () => {
      const delayed = buildAuthorizationRecord(authorityInput({ cooling_off_seconds: 3600 }));
      expect(projectReceipt(delayed, [], at('2026-01-01T00:30:00Z')).status).toBe('pending');
      expect(projectReceipt(delayed, [], at('2026-01-01T01:00:00Z')).status).toBe('active');
    });
  });

  it('notice records are shown, then acknowledged', () => {
    expect(projectReceipt(buildNoticeRecord(noticeInput()), [], at('2026-03-01T00:00:00Z')).status).toBe('shown');
    expect(
      projectReceipt(buildNoticeRecord(noticeInput({ acknowledged_at: '2026-01-01T09:05:00Z' })), [], at('2026-03-01T00:00:00Z')).status,
    ).toBe('acknowledged');
  });

  it('adds ISO durations in calendar terms', () => {
    expect(addIsoDuration(at('2026-01-31T00:00:00Z'), 'P1M')?.toISOString()).toBe('2026-03-03T00:00:00.000Z');
    expect(addIsoDuration(at('2026-01-01T00:00:00Z'), 'P1Y2W3DT4H5M6S')?.toISOString()).toBe('2027-01-18T04:05:06.000Z');
    expect(addIsoDuration(at('2026-01-01T00:00:00Z'), 'one year')).toBeUndefined();
  });
});

/** Issue 18 item 8: receipts say where — processing locations only where a recorded transfer exists. */
describe('processing locations from recorded transfers', () => {
  const frozen = buildConsentRecord(consentInput({ processing: { storage_locations: ['DE'] } }));
  const transfer = (country: string, basis: string, id: string, when = '2026-02-01T00:00:00Z'): ReceiptTransition => ({
    type: 'transfer_recorded',
    at: when,
    country,
    transfer_basis: basis,
    transfer_register_id: id,
  });

  it('omits processing_locations while no transfer is recorded (absence rule) and keeps storage_locations', () => {
    const projection = projectReceipt(frozen, [], at('2026-03-01T00:00:00Z'));
    expect(projection.document.pii_processing.storage_locations).toEqual(['DE']);
    expect(projection.document.pii_processing).not.toHaveProperty('processing_locations');
  });

  it('lists each recorded crossing once with its basis and register id, adds no event row, and stays schema-valid', () => {
    const projection = projectReceipt(
      frozen,
      [
        transfer('US', 'standard_contractual_clauses', 'xfr_aaaaaaaaaaaaaaaaaaaaaaaa'),
        transfer('US', 'standard_contractual_clauses', 'xfr_bbbbbbbbbbbbbbbbbbbbbbbb'),
        transfer('JP', 'adequacy_decision', 'xfr_cccccccccccccccccccccccc'),
      ],
      at('2026-03-01T00:00:00Z'),
    );
    expect(projection.document.pii_processing.processing_locations).toEqual([
      { country: 'US', transfer_basis: 'standard_contractual_clauses', transfer_register_id: 'xfr_aaaaaaaaaaaaaaaaaaaaaaaa' },
      { country: 'JP', transfer_basis: 'adequacy_decision', transfer_register_id: 'xfr_cccccccccccccccccccccccc' },
    ]);
    expect(projection.document.event).toEqual(frozen.event);
    expect(projection.status).toBe('active');
    expect(validateReceiptDocument(projection.document).valid).toBe(true);
  });

  it('does not state a crossing recorded after the rendering time', () => {
    const projection = projectReceipt(
      frozen,
      [transfer('US', 'standard_contractual_clauses', 'xfr_aaaaaaaaaaaaaaaaaaaaaaaa', '2026-04-01T00:00:00Z')],
      at('2026-03-01T00:00:00Z'),
    );
    expect(projection.document.pii_processing).not.toHaveProperty('processing_locations');
  });
});
