import { anonymousConsentInput, authorityInput, consentInput, noticeInput } from '../../test/receipt-fixtures';
import { buildAuthorizationRecord } from './build-authorization-record';
import { buildConsentRecord } from './build-consent-record';
import { buildNoticeRecord } from './build-notice-record';
import { noticeHash } from './notice-hash';

function refusal(build: () => unknown): { code: string; field: unknown; message: string } {
  try {
    build();
  } catch (error) {
    const { code, detail, message } = error as { code: string; detail?: { field?: unknown }; message: string };
    return { code, field: detail?.field, message };
  }
  throw new Error('the input was accepted');
}

const IDENTIFIED = { kind: 'identified' as const, pii_principal_id: 'subj_9f2c' };
const NEEDS_PRINCIPAL = {
  code: 'receipt_input_invalid',
  field: 'principal.pii_principal_id',
  message: 'An identified record needs its principal id',
};

/** Spec: Durable receipt schema svc-cr/2.13 — presence and absence rule of every field the builders decide. */
describe('notice record', () => {
  it('of an identified person carries pii_principal_id, no anonymous flag, and the person acknowledges', () => {
    const document = buildNoticeRecord(noticeInput({ principal: IDENTIFIED, acknowledged_at: '2026-01-01T09:01:00+00:00' }));
    expect(document.record).toEqual({
      schema_version: 'svc-cr/2.13',
      conforms_to: 'ISO/IEC TS 27560:2023',
      record_id: 'dscl_us_aaaaaaaaaaaaaaaaaaaa',
      record_type: 'notice_record',
      pii_principal_id: 'subj_9f2c',
    });
    expect(document.event).toEqual([
      {
        event_time: '2026-01-01T09:00:00.000Z',
        entity_id: 'agent_us_aaaaaaaaaaaaaaaaaaaa',
        event_type: 'explicit',
        event_state: 'notice shown',
      },
      { event_time: '2026-01-01T09:01:00.000Z', entity_id: 'subj_9f2c', event_type: 'explicit', event_state: 'notice acknowledged' },
    ]);
  });

  it('of an anonymous person says anonymous: true and the record acknowledges', () => {
    const document = buildNoticeRecord(noticeInput({ acknowledged_at: '2026-01-01T09:01:00Z' }));
    expect(document.record).toEqual({
      schema_version: 'svc-cr/2.13',
      conforms_to: 'ISO/IEC TS 27560:2023',
      record_id: 'dscl_us_aaaaaaaaaaaaaaaaaaaa',
      record_type: 'notice_record',
      anonymous: true,
    });
    expect(document.event[1]!.entity_id).toBe('dscl_us_aaaaaaaaaaaaaaaaaaaa');
  });

  it('has only the shown event while no acknowledgement is known', () => {
    expect(buildNoticeRecord(noticeInput()).event.map((e) => e.event_state)).toEqual(['notice shown']);
  });

  it('refuses an identified person without id, and unparseable times', () => {
    expect(refusal(() => buildNoticeRecord(noticeInput({ principal: { kind: 'identified', pii_principal_id: '' } })))).toEqual(
      NEEDS_PRINCIPAL,
    );
    expect(refusal(() => buildNoticeRecord(noticeInput({ shown_at: 'now' })))).toMatchObject({ field: 'shown_at' });
    expect(refusal(() => buildNoticeRecord(noticeInput({ acknowledged_at: 'later' })))).toMatchObject({ field: 'acknowledged_at' });
  });

  it('freezes the notice shown, its hash, url and language, and no purposes', () => {
    const input = noticeInput({ notice_url: 'https://acme.example/privacy' });
    expect(buildNoticeRecord(input).pii_processing).toEqual({
      language: 'en',
      jurisdiction: 'unspecified',
      privacy_notice: {
        reference: 'flw_us_aaaaaaaaaaaaaaaaaaaa@v1',
        hash: noticeHash(input.notice.content),
        url: 'https://acme.example/privacy',
      },
      purposes: [],
    });
  });

  it('carries parties and collection extensions, and no extensions when nothing was collected', () => {
    const document = buildNoticeRecord(noticeInput());
    expect(document.party_identification.map((p) => p.party_id)).toEqual(['tp_us_aaaaaaaaaaaaaaaaaaaa', 'agent_us_aaaaaaaaaaaaaaaaaaaa']);
    expect(document.extensions).toMatchObject({ collection_channel: 'controller_attested' });
    expect(buildNoticeRecord(noticeInput({ collection: {} }))).not.toHaveProperty('extensions');
  });
});

describe('consent record', () => {
  it('refuses an identified person without id', () => {
    expect(refusal(() => buildConsentRecord(consentInput({ principal: { kind: 'identified', pii_principal_id: '' } })))).toEqual(
      NEEDS_PRINCIPAL,
    );
  });

  it('refuses a purpose decided twice, naming it', () => {
    const twice = consentInput({
      decisions: [
        { purpose_id: 'ads', label: 'A', decision: 'granted' },
        { purpose_id: 'mail', label: 'M', decision: 'granted' },
        { purpose_id: 'ads', label: 'A', decision: 'declined' },
      ],
    });
    expect(refusal(() => buildConsentRecord(twice))).toEqual({
      code: 'receipt_input_invalid',
      field: 'decisions',
      message: 'Purpose ads is decided twice',
    });
  });

  it('writes purposes without a lawful basis when none was recorded', () => {
    const document = buildConsentRecord(consentInput({ decisions: [{ purpose_id: 'ads', label: 'Ads', decision: 'granted' }] }));
    expect(document.pii_processing.purposes).toEqual([{ purpose_id: 'ads', label: 'Ads' }]);
  });

  it('records an implicit decision as implicit, given or declined', () => {
    expect(buildConsentRecord(consentInput({ event_type: 'implicit' })).event[0]!.event_type).toBe('implicit');
    const declined = buildConsentRecord(
      anonymousConsentInput({ event_type: 'implicit', decisions: [{ purpose_id: 'ads', label: 'Ads', decision: 'declined' }] }),
    );
    expect(declined.event).toEqual([
      {
        event_time: '2026-01-01T10:00:00.000Z',
        entity_id: 'crec_us_bbbbbbbbbbbbbbbbbbbb',
        event_type: 'implicit',
        event_state: 'notice acknowledged',
      },
    ]);
    const explicit = buildConsentRecord(consentInput({ decisions: [{ purpose_id: 'ads', label: 'Ads', decision: 'declined' }] }));
    expect(explicit.event).toEqual([
      { event_time: '2026-01-01T10:00:00.000Z', entity_id: 'subj_9f2c', event_type: 'explicit', event_state: 'notice acknowledged' },
    ]);
  });

  it('refuses an unparseable decision time, given or declined, naming given_at', () => {
    expect(refusal(() => buildConsentRecord(consentInput({ given_at: 'today' })))).toMatchObject({
      field: 'given_at',
      message: 'given_at must be an ISO 8601 timestamp',
    });
    const declined = consentInput({ given_at: 'today', decisions: [{ purpose_id: 'ads', label: 'Ads', decision: 'declined' }] });
    expect(refusal(() => buildConsentRecord(declined))).toMatchObject({
      field: 'given_at',
      message: 'given_at must be an ISO 8601 timestamp',
    });
  });

  it('writes the anonymous record id as the acting entity of consent given', () => {
    expect(buildConsentRecord(anonymousConsentInput()).event[0]).toMatchObject({
      entity_id: 'crec_us_bbbbbbbbbbbbbbbbbbbb',
      event_state: 'consent given',
    });
    expect(buildConsentRecord(anonymousConsentInput()).record).not.toHaveProperty('pii_principal_id');
  });

  it('takes the language from the notice locale and omits signature evidence when there is none', () => {
    const document = buildConsentRecord(consentInput());
    expect(document.pii_processing.language).toBe('en-GB');
    expect(document.extensions).not.toHaveProperty('signature_evidence');
  });

  it('copies signature evidence', () => {
    const evidence = { pointer: 'sig_1', digest: 'b'.repeat(64) };
    const document = buildConsentRecord(consentInput({ signature_evidence: evidence }));
    expect(document.extensions!.signature_evidence).toEqual(evidence);
    expect(document.extensions!.signature_evidence).not.toBe(evidence);
  });
});

describe('authorization record', () => {
  it('refuses an authority without its principal', () => {
    expect(refusal(() => buildAuthorizationRecord(authorityInput({ pii_principal_id: '' })))).toEqual({
      code: 'receipt_input_invalid',
      field: 'pii_principal_id',
      message: 'An authorization record names its principal',
    });
  });

  it('refuses valid_until not after valid_from, and accepts either alone', () => {
    expect(refusal(() => buildAuthorizationRecord(authorityInput({ valid_until: '2026-01-01T00:00:00.000Z' })))).toEqual({
      code: 'receipt_input_invalid',
      field: 'valid_until',
      message: 'valid_until must be after valid_from',
    });
    expect(buildAuthorizationRecord(authorityInput({ valid_until: '2026-01-01T00:00:00.001Z' })).authority).toMatchObject({
      valid_from: '2026-01-01T00:00:00.000Z',
      valid_until: '2026-01-01T00:00:00.001Z',
    });
    expect(buildAuthorizationRecord(authorityInput({ valid_from: undefined })).authority).not.toHaveProperty('valid_from');
    expect(buildAuthorizationRecord(authorityInput({ valid_from: undefined })).authority).toMatchObject({
      valid_until: '2026-07-01T00:00:00.000Z',
    });
    expect(refusal(() => buildAuthorizationRecord(authorityInput({ valid_from: 'soon' })))).toMatchObject({ field: 'valid_from' });
    expect(refusal(() => buildAuthorizationRecord(authorityInput({ valid_until: 'later' })))).toMatchObject({ field: 'valid_until' });
  });

  it.each([-1, Number.NaN, Number.POSITIVE_INFINITY])('refuses a cooling-off of %s seconds', (seconds) => {
    expect(refusal(() => buildAuthorizationRecord(authorityInput({ cooling_off_seconds: seconds })))).toEqual({
      code: 'receipt_input_invalid',
      field: 'cooling_off_seconds',
      message: 'cooling_off_seconds must be zero or more',
    });
  });

  it('writes cooling_off for any delay above zero, none without one', () => {
    expect(buildAuthorizationRecord(authorityInput({ cooling_off_seconds: 1 })).authority!.cooling_off).toBe('PT1S');
    expect(buildAuthorizationRecord(authorityInput({ cooling_off_seconds: undefined })).authority).not.toHaveProperty('cooling_off');
  });

  it('writes every bound it is given, and the withdrawal method', () => {
    const bounds = {
      scope_bounds: { allowed: ['a'] },
      action_bounds: { allowed: ['pay'] },
      value_bounds: { currency: 'EUR' },
      time_bounds: { hours_utc: [8, 18] },
      escalation_bounds: { always: true },
      reputation_bounds: { min_trust_score: 1 },
      jurisdiction_bounds: { allowed: ['FR'] },
      sequence_bounds: { max_continuation_depth: 2 },
    };
    const { authority } = buildAuthorizationRecord(authorityInput({ bounds, cooling_off_seconds: 0 }));
    expect(authority).toEqual({
      ...bounds,
      valid_from: '2026-01-01T00:00:00.000Z',
      valid_until: '2026-07-01T00:00:00.000Z',
      withdrawal_method: 'https://api.example/authorities/auth_us_aaaaaaaaaaaaaaaaaaaa/withdraw',
    });
  });

  it('names the principal on the record and on both events', () => {
    const document = buildAuthorizationRecord(authorityInput({ requested_at: '2025-12-31T23:00:00+00:00' }));
    expect(document.record).toEqual({
      schema_version: 'svc-cr/2.13',
      conforms_to: 'ISO/IEC TS 27560:2023',
      record_id: 'auth_us_aaaaaaaaaaaaaaaaaaaa',
      record_type: 'authorization_record',
      pii_principal_id: 'subj_9f2c',
    });
    expect(document.event).toEqual([
      { event_time: '2025-12-31T23:00:00.000Z', entity_id: 'subj_9f2c', event_type: 'explicit', event_state: 'authority requested' },
      { event_time: '2026-01-01T00:00:00.000Z', entity_id: 'subj_9f2c', event_type: 'explicit', event_state: 'authority granted' },
    ]);
    expect(refusal(() => buildAuthorizationRecord(authorityInput({ requested_at: 'before' })))).toMatchObject({ field: 'requested_at' });
    expect(refusal(() => buildAuthorizationRecord(authorityInput({ granted_at: 'then' })))).toMatchObject({ field: 'granted_at' });
  });

  it('writes its purposes, with a lawful basis only when recorded', () => {
    const document = buildAuthorizationRecord(
      authorityInput({
        purposes: [
          { purpose_id: 'p1', label: 'One', lawful_basis: 'contract' },
          { purpose_id: 'p2', label: 'Two' },
        ],
      }),
    );
    expect(document.pii_processing).toEqual({
      language: 'en',
      jurisdiction: 'unspecified',
      purposes: [
        { purpose_id: 'p1', label: 'One', lawful_basis: 'contract' },
        { purpose_id: 'p2', label: 'Two' },
      ],
    });
    expect(document.party_identification).toHaveLength(2);
  });

  it('writes every known extension, copying nested objects and normalising times', () => {
    const extensions = {
      scopes: ['orders:write'],
      sensitive: true,
      accountability_record: 'acc_1',
      grant_integrity: { content_sha256: 'a'.repeat(64), key_versions: ['oap-us-v1', 'oap-us-v2'] },
      delegation_chain_root: 'subj_9f2c',
      capability_manifest: { version: '1', sha256: 'c'.repeat(64) },
      captured_at: '2026-01-01T01:00:00+01:00',
      recorded_at: '2026-01-01T00:00:01Z',
    };
    const document = buildAuthorizationRecord(authorityInput({ extensions }));
    expect(document.extensions).toEqual({
      ...extensions,
      captured_at: '2026-01-01T00:00:00.000Z',
      recorded_at: '2026-01-01T00:00:01.000Z',
    });
    expect(document.extensions!.grant_integrity!.key_versions).not.toBe(extensions.grant_integrity.key_versions);
    expect(document.extensions!.capability_manifest).not.toBe(extensions.capability_manifest);
    expect(refusal(() => buildAuthorizationRecord(authorityInput({ extensions: { captured_at: 'x' } })))).toMatchObject({
      field: 'extensions.captured_at',
    });
    expect(refusal(() => buildAuthorizationRecord(authorityInput({ extensions: { recorded_at: 'x' } })))).toMatchObject({
      field: 'extensions.recorded_at',
    });
  });

  it('has no extensions when none are known or the scope list is empty', () => {
    expect(buildAuthorizationRecord(authorityInput({ extensions: undefined }))).not.toHaveProperty('extensions');
    expect(buildAuthorizationRecord(authorityInput({ extensions: { scopes: [] } }))).not.toHaveProperty('extensions');
  });
});
