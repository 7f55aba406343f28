import { anonymousConsentInput, authorityInput, consentInput, noticeInput } from '../../test/receipt-fixtures';
import { validateReceiptDocument } from '../schema/published-schema';
import { buildAuthorizationRecord } from './build-authorization-record';
import { buildConsentRecord } from './build-consent-record';
import { buildNoticeRecord } from './build-notice-record';
import { buildReceipt } from './build-receipt';
import type { ReceiptDocument } from './receipt-document';

function expectValid(document: ReceiptDocument): void {
  const result = validateReceiptDocument(document);
  expect(result).toEqual({ valid: true });
}

/** Spec: Durable receipt schema svc-cr/2.13 — every section and field rule, and the absence rule. */
describe('receipt builders', () => {
  describe('record section', () => {
    it.each([
      ['identified consent', () => buildConsentRecord(consentInput())],
      ['anonymous consent', () => buildConsentRecord(anonymousConsentInput())],
      ['notice', () => buildNoticeRecord(noticeInput())],
      ['authorization', () => buildAuthorizationRecord(authorityInput())],
    ])('%s: schema_version, conforms_to ISO/IEC TS 27560:2023, record_id, record_type; validates', (_name, build) => {
      const document = build();
      expect(document.record).toMatchObject({ schema_version: 'svc-cr/2.13', conforms_to: 'ISO/IEC TS 27560:2023' });
      expect(document.record.record_id).toEqual(expect.any(String));
      expectValid(document);
    });

    it('an identified record carries pii_principal_id and no anonymous flag', () => {
      const { record } = buildConsentRecord(consentInput());
      expect(record).toEqual({
        schema_version: 'svc-cr/2.13',
        conforms_to: 'ISO/IEC TS 27560:2023',
        record_id: 'crec_us_aaaaaaaaaaaaaaaaaaaa',
        record_type: 'consent_record',
        pii_principal_id: 'subj_9f2c',
      });
    });

    it('an anonymous record says anonymous: true, has no pii_principal_id, and its record id stands in for the principal', () => {
      const document = buildConsentRecord(anonymousConsentInput());
      expect(document.record.anonymous).toBe(true);
      expect(document.record).not.toHaveProperty('pii_principal_id');
      expect(document.event[0]!.entity_id).toBe(document.record.record_id);
    });

    it('buildReceipt dispatches on the input kind', () => {
      expect(buildReceipt(authorityInput()).record.record_type).toBe('authorization_record');
      expect(buildReceipt(noticeInput()).record.record_type).toBe('notice_record');
      expect(buildReceipt(consentInput()).record.record_type).toBe('consent_record');
    });
  });

  describe('pii_processing', () => {
    it('lists granted purposes only, with the labels frozen at decision time', () => {
      const { pii_processing } = buildConsentRecord(consentInput());
      expect(pii_processing.purposes).toEqual([
        { purpose_id: 'marketing', label: 'Marketing emails', lawful_basis: 'consent' },
        { purpose_id: 'analytics', label: 'Product analytics', lawful_basis: 'legitimate_interest' },
      ]);
    });

    it('records the versioned notice reference with its hash and url', () => {
      const { pii_processing } = buildConsentRecord(consentInput());
      expect(pii_processing.privacy_notice).toEqual({
        reference: 'flw_us_aaaaaaaaaaaaaaaaaaaa@v1',
        hash: expect.stringMatching(/^[0-9a-f]{64}$/),
        url: 'https://acme.example/privacy',
      });
      expect(pii_processing.language).toBe('en-GB');
    });

    it('says jurisdiction "unspecified" when none was declared', () => {
      expect(buildConsentRecord(consentInput({ processing: {} })).pii_processing.jurisdiction).toBe('unspecified');
    });

    it('writes processing_locations only when lawful-transfer bases exist', () => {
      expect(buildConsentRecord(consentInput()).pii_processing).not.toHaveProperty('processing_locations');
      expect(buildConsentRecord(consentInput({ processing: { lawful_transfers: [] } })).pii_processing).not.toHaveProperty(
        'processing_locations',
      );
      const withTransfer = buildConsentRecord(
        consentInput({ processing: { lawful_transfers: [{ country: 'DE', transfer_basis: 'adequacy_decision' }] } }),
      );
      expect(withTransfer.pii_processing.processing_locations).toEqual([{ country: 'DE', transfer_basis: 'adequacy_decision' }]);
      expectValid(withTransfer);
      expect(() => buildConsentRecord(consentInput({ processing: { lawful_transfers: [{ country: 'DE', transfer_basis: '' }] } }))).toThrow(
        expect.objectContaining({ code: 'receipt_input_invalid' }),
      );
    });

    it('keeps recipient_third_parties [] ("nothing shared") and omits it when the recipients cannot be enumerated', () => {
      expect(buildConsentRecord(consentInput()).pii_processing.recipient_third_parties).toEqual([]);
      const unknown = buildConsentRecord(consentInput({ processing: { jurisdiction: 'GB' } }));
      expect(unknown.pii_processing).not.toHaveProperty('recipient_third_parties');
      expectValid(unknown);
    });

    it('absence rule: unknown facts are omitted, never null or guessed', () => {
      const document = buildConsentRecord(consentInput({ processing: {}, collection: {}, notice_url: undefined }));
      expect(Object.keys(document.pii_processing).sort()).toEqual(['jurisdiction', 'language', 'privacy_notice', 'purposes']);
      expect(document.pii_processing.privacy_notice).not.toHaveProperty('url');
      expect(document).not.toHaveProperty('extensions');
      expect(JSON.stringify(document)).not.toContain('null');
      expectValid(document);
    });
  });

  describe('event rows of the frozen record', () => {
    it('consent given carries validity_duration only when the consent expires', () => {
      expect(buildConsentRecord(consentInput()).event).toEqual([
        {
          event_time: '2026-01-01T10:00:00.000Z',
          validity_duration: 'P1Y',
          entity_id: 'subj_9f2c',
          event_type: 'explicit',
          event_state: 'consent given',
        },
      ]);
      expect(buildConsentRecord(consentInput({ validity_duration: undefined })).event[0]).not.toHaveProperty('validity_duration');
    });

    it('a re-affirming record references its predecessor', () => {
      const document = buildConsentRecord(consentInput({ record_reference: 'crec_us_cccccccccccccccccccc' }));
      expect(document.event[0]!.record_reference).toBe('crec_us_cccccccccccccccccccc');
      expectValid(document);
    });

    it('a record where every purpose was declined issues no consent given (and never consent refused)', () => {
      const document = buildConsentRecord(
        consentInput({ decisions: [{ purpose_id: 'marketing', label: 'Marketing emails', decision: 'declined' }] }),
      );
      expect(document.pii_processing.purposes).toEqual([]);
      expect(document.event.map((e) => e.event_state)).toEqual(['notice acknowledged']);
      expectValid(document);
    });

    it('notice records: notice shown by the agent, then notice acknowledged when known', () => {
      const document = buildNoticeRecord(noticeInput({ acknowledged_at: '2026-01-01T09:01:00Z' }));
      expect(document.event.map((e) => [e.event_state, e.entity_id])).toEqual([
        ['notice shown', 'agent_us_aaaaaaaaaaaaaaaaaaaa'],
        ['notice acknowledged', 'dscl_us_aaaaaaaaaaaaaaaaaaaa'],
      ]);
      expect(document.pii_processing.purposes).toEqual([]);
      expectValid(document);
    });

    it('authorization records: authority requested (when known) and authority granted by the principal', () => {
      const document = buildAuthorizationRecord(authorityInput({ requested_at: '2025-12-31T23:00:00Z' }));
      expect(document.event.map((e) => e.event_state)).toEqual(['authority requested', 'authority granted']);
      expectValid(document);
    });
  });

  describe('authority section (authorization records only)', () => {
    it('writes each bound exactly when enforced, sequence bounds as sequence_bounds', () => {
      const { authority } = buildAuthorizationRecord(authorityInput());
      expect(Object.keys(authority!).sort()).toEqual([
        'scope_bounds',
        'sequence_bounds',
        'valid_from',
        'valid_until',
        'value_bounds',
        'withdrawal_method',
      ]);
    });

    it('omits valid_until for an open-ended authority', () => {
      const document = buildAuthorizationRecord(authorityInput({ valid_until: undefined }));
      expect(document.authority).not.toHaveProperty('valid_until');
      expectValid(document);
    });

    it('writes cooling_off only when an activation delay existed', () => {
      expect(buildAuthorizationRecord(authorityInput()).authority).not.toHaveProperty('cooling_off');
      const delayed = buildAuthorizationRecord(authorityInput({ cooling_off_seconds: 3600 }));
      expect(delayed.authority!.cooling_off).toBe('PT3600S');
      expectValid(delayed);
    });

    it('is absent from consent and notice records', () => {
      expect(buildConsentRecord(consentInput())).not.toHaveProperty('authority');
      expect(buildNoticeRecord(noticeInput())).not.toHaveProperty('authority');
    });

    it('copies bounds: the frozen document does not share objects with the input', () => {
      const input = authorityInput();
      const document = buildAuthorizationRecord(input);
      (input.bounds.scope_bounds as { allowed: string[] }).allowed.push('late:change');
      expect(document.authority!.scope_bounds).toEqual({ allowed: ['orders:write'] });
    });
  });

  describe('extensions', () => {
    it('authorization records carry grant_integrity and delegation_chain_root, never agent_disclosures', () => {
      const { extensions } = buildAuthorizationRecord(authorityInput());
      expect(extensions).toEqual({
        grant_integrity: { content_sha256: 'a'.repeat(64), key_versions: ['oap-us-v1'] },
        delegation_chain_root: 'subj_9f2c',
      });
    });

    it('signature_evidence appears on consent records (and the input types allow it nowhere else)', () => {
      const document = buildConsentRecord(consentInput({ signature_evidence: { pointer: 'sig_1', digest: 'b'.repeat(64) } }));
      expect(document.extensions!.signature_evidence).toEqual({ pointer: 'sig_1', digest: 'b'.repeat(64) });
      expectValid(document);
    });

    it('rendering_evidence is accepted for embedded_field channels and refused for any other', () => {
      const rendered = buildConsentRecord(
        consentInput({ collection: { collection_channel: 'embedded_field_browser', rendering_evidence: { digest: 'c'.repeat(64) } } }),
      );
      expect(rendered.extensions!.rendering_evidence).toEqual({ digest: 'c'.repeat(64) });
      expectValid(rendered);
      expect(() =>
        buildConsentRecord(consentInput({ collection: { collection_channel: 'hosted', rendering_evidence: { digest: 'c'.repeat(64) } } })),
      ).toThrow(expect.objectContaining({ code: 'receipt_input_invalid', detail: { field: 'collection.rendering_evidence' } }));
    });

    it.each([
      'hosted',
      'embedded',
      'embedded_field',
      'embedded_field_browser',
      'form_capture',
      'form_capture_browser',
      'form_platform_webhook',
      'controller_attested',
      'imported',
    ] as const)('collection_channel %s validates', (channel) => {
      const rendering = channel.startsWith('embedded_field') ? { rendering_evidence: { digest: 'd'.repeat(64) } } : {};
      expectValid(buildConsentRecord(consentInput({ collection: { collection_channel: channel, ...rendering } })));
    });

    it('notice records carry operator-declared agent disclosures', () => {
      expect(buildNoticeRecord(noticeInput()).extensions!.agent_disclosures).toEqual([
        { agent_id: 'agent_us_aaaaaaaaaaaaaaaaaaaa', disclosed_at: '2026-01-01T09:00:00.000Z', provenance: 'operator_declared' },
      ]);
    });
  });

  describe('refused inputs', () => {
    it('a purpose decided twice', () => {
      const twice = consentInput({
        decisions: [
          { purpose_id: 'marketing', label: 'A', decision: 'granted' },
          { purpose_id: 'marketing', label: 'A', decision: 'declined' },
        ],
      });
      expect(() => buildConsentRecord(twice)).toThrow(expect.objectContaining({ code: 'receipt_input_invalid' }));
    });

    it('an unparseable time and a valid_until before valid_from', () => {
      expect(() => buildConsentRecord(consentInput({ given_at: 'yesterday' }))).toThrow(
        expect.objectContaining({ code: 'receipt_input_invalid' }),
      );
      expect(() => buildAuthorizationRecord(authorityInput({ valid_until: '2025-01-01T00:00:00Z' }))).toThrow(
        expect.objectContaining({ code: 'receipt_input_invalid', detail: { field: 'valid_until' } }),
      );
    });

    it('a record without parties', () => {
      expect(() => buildNoticeRecord(noticeInput({ parties: [] }))).toThrow(expect.objectContaining({ code: 'receipt_input_invalid' }));
    });
  });
});
