import {
  buildCollectionExtensions,
  buildParties,
  buildPiiProcessing,
  definedOnly,
  invalidInput,
  isoTime,
  secondsAsDuration,
} from './build-common';

/** The code, field and message of a refused input. */
function refusal(build: () => unknown): { code: string; field: unknown; message: string } {
  try {
    build();
  } catch (error) {
    const { code, detail, message } = error as { code: string; detail?: { field?: unknown }; message: string };
    return { code, field: detail?.field, message };
  }
  throw new Error('the input was accepted');
}

const PURPOSES = [{ purpose_id: 'marketing', label: 'Marketing emails', lawful_basis: 'consent' as const }];

describe('receipt builder primitives (svc-cr/2.13 field rules)', () => {
  it('definedOnly drops undefined members only', () => {
    expect(definedOnly({ a: undefined, b: null, c: 0, d: false, e: '', f: 'x' })).toEqual({ b: null, c: 0, d: false, e: '', f: 'x' });
    expect(Object.keys(definedOnly({ a: undefined }))).toEqual([]);
  });

  it('invalidInput refuses with receipt_input_invalid naming the field', () => {
    expect(refusal(() => invalidInput('given_at', 'bad time'))).toEqual({
      code: 'receipt_input_invalid',
      field: 'given_at',
      message: 'bad time',
    });
  });

  describe('isoTime', () => {
    it('normalises an ISO 8601 timestamp to UTC with milliseconds', () => {
      expect(isoTime('2026-01-01T10:00:00+02:00', 'given_at')).toBe('2026-01-01T08:00:00.000Z');
      expect(isoTime('2026-01-01T10:00:00Z', 'given_at')).toBe('2026-01-01T10:00:00.000Z');
    });
    it.each([
      'yesterday',
      '2026-01-01',
      'x2026-01-01T10:00:00Z',
      'Jan 1 2026 10:00',
      '2026-13-45T99:00:00Z',
      '2026-1-01T10:00:00Z',
      '+002026-01-01T10:00:00Z',
      '-002026-01-01T10:00:00Z',
    ])('refuses %s', (value) => {
      expect(refusal(() => isoTime(value, 'shown_at'))).toEqual({
        code: 'receipt_input_invalid',
        field: 'shown_at',
        message: 'shown_at must be an ISO 8601 timestamp',
      });
    });
  });

  it('secondsAsDuration writes whole seconds as PT<n>S', () => {
    expect(secondsAsDuration(90)).toBe('PT90S');
    expect(secondsAsDuration(90.9)).toBe('PT90S');
  });

  describe('buildParties', () => {
    it('keeps input order and every known member, omitting unknown ones', () => {
      const full = {
        party_id: 'tp_1',
        party_name: 'Acme',
        party_role: 'controller' as const,
        party_type: 'organization' as never,
        provenance: 'declared' as const,
        party_address: '1 Road',
        party_email: 'a@acme.example',
        party_phone: '+331',
        party_url: 'https://acme.example',
      };
      const agent = { party_id: 'agent_1', party_name: 'bot', party_role: 'agent' as const, party_type: undefined };
      expect(buildParties([full, agent])).toEqual([full, { party_id: 'agent_1', party_name: 'bot', party_role: 'agent' }]);
      expect(buildParties([full, agent])[1]).not.toHaveProperty('party_type');
    });
    it('refuses a record without parties', () => {
      expect(refusal(() => buildParties([]))).toEqual({
        code: 'receipt_input_invalid',
        field: 'parties',
        message: 'A record names at least its controller',
      });
    });
  });

  describe('buildPiiProcessing', () => {
    it('writes only language, "unspecified" jurisdiction and purposes from empty facts', () => {
      expect(buildPiiProcessing('en', PURPOSES, {})).toEqual({ language: 'en', jurisdiction: 'unspecified', purposes: PURPOSES });
    });

    it('writes every known fact, copying lists', () => {
      const facts = {
        jurisdiction: 'GB',
        collection_method: 'web form',
        storage_locations: ['GB', 'IE'],
        lawful_transfers: [{ country: 'US', transfer_basis: 'scc' }],
        withdrawal_method: 'https://acme.example/withdraw',
        recipient_third_parties: ['Mailer Inc', 'Analytics Ltd'],
        privacy_rights: ['access', 'erasure'],
        processing_method: ['automated'],
        impact_assessment: 'dpia-7',
      };
      const section = buildPiiProcessing('en', PURPOSES, facts, { reference: 'flw@v1', hash: 'h', url: 'https://acme.example/privacy' });
      expect(section).toEqual({
        language: 'en',
        privacy_notice: { reference: 'flw@v1', hash: 'h', url: 'https://acme.example/privacy' },
        purposes: PURPOSES,
        processing_locations: facts.lawful_transfers,
        ...facts,
        lawful_transfers: undefined,
      });
      expect(section).not.toHaveProperty('lawful_transfers');
      expect(section.storage_locations).not.toBe(facts.storage_locations);
      expect(section.recipient_third_parties).not.toBe(facts.recipient_third_parties);
      expect(section.privacy_rights).not.toBe(facts.privacy_rights);
      expect(section.processing_method).not.toBe(facts.processing_method);
      expect(section.processing_locations![0]).not.toBe(facts.lawful_transfers[0]);
    });

    it('writes privacy_notice without url when the notice has none, and no privacy_notice without a notice', () => {
      expect(buildPiiProcessing('en', [], {}, { reference: 'flw@v1', hash: 'h' }).privacy_notice).toEqual({
        reference: 'flw@v1',
        hash: 'h',
      });
      expect(buildPiiProcessing('en', [], {})).not.toHaveProperty('privacy_notice');
    });

    it('keeps a non-empty recipient list as given and [] as "nothing shared"', () => {
      expect(buildPiiProcessing('en', [], { recipient_third_parties: ['Mailer Inc'] }).recipient_third_parties).toEqual(['Mailer Inc']);
      expect(buildPiiProcessing('en', [], { recipient_third_parties: [] }).recipient_third_parties).toEqual([]);
    });

    it('omits empty storage, rights, method and transfer lists', () => {
      const section = buildPiiProcessing('en', [], {
        storage_locations: [],
        privacy_rights: [],
        processing_method: [],
        lawful_transfers: [],
      });
      expect(Object.keys(section).sort()).toEqual(['jurisdiction', 'language', 'purposes']);
    });

    it('refuses a transfer without its lawful basis, naming its index', () => {
      const transfers = [
        { country: 'US', transfer_basis: 'scc' },
        { country: 'IN', transfer_basis: '' },
      ];
      expect(refusal(() => buildPiiProcessing('en', [], { lawful_transfers: transfers }))).toEqual({
        code: 'receipt_input_invalid',
        field: 'processing.lawful_transfers[1].transfer_basis',
        message: 'A processing location needs its recorded lawful-transfer basis',
      });
    });
  });

  describe('buildCollectionExtensions', () => {
    it('is absent when nothing is known', () => {
      expect(buildCollectionExtensions({})).toBeUndefined();
    });

    it('writes every known collection fact, normalising times and copying lists', () => {
      const facts = {
        collection_mechanism: 'checkbox',
        delivery_mode: 'embed' as const,
        scopes: ['orders:read', 'profile:read'],
        sensitive: false,
        consent_flow_id: 'flw_1',
        accountability_record: 'acc_1',
        agent_disclosures: [{ agent_id: 'agent_1', disclosed_at: '2026-01-01T09:00:00.000Z', provenance: 'operator_declared' as const }],
        collection_channel: 'embedded_field' as const,
        collection_platform: 'shopify',
        wording_drift: { detected: true, presented_hash: 'p' },
        captured_at: '2026-01-01T10:00:00+01:00',
        recorded_at: '2026-01-01T10:00:01Z',
        presentation_attested: ['screenshot', 'dom'],
        rendering_evidence: { digest: 'd', pointer: 'ptr' },
      };
      const section = buildCollectionExtensions(facts);
      expect(section).toEqual({ ...facts, captured_at: '2026-01-01T09:00:00.000Z', recorded_at: '2026-01-01T10:00:01.000Z' });
      expect(section!.scopes).not.toBe(facts.scopes);
      expect(section!.presentation_attested).not.toBe(facts.presentation_attested);
      expect(section!.agent_disclosures![0]).not.toBe(facts.agent_disclosures[0]);
      expect(section!.wording_drift).not.toBe(facts.wording_drift);
      expect(section!.rendering_evidence).not.toBe(facts.rendering_evidence);
    });

    it('refuses unparseable capture and record times', () => {
      expect(refusal(() => buildCollectionExtensions({ captured_at: 'soon' }))).toMatchObject({ field: 'collection.captured_at' });
      expect(refusal(() => buildCollectionExtensions({ recorded_at: 'soon' }))).toMatchObject({ field: 'collection.recorded_at' });
    });

    it('omits empty scope, disclosure and attestation lists', () => {
      expect(buildCollectionExtensions({ scopes: [], agent_disclosures: [], presentation_attested: [] })).toBeUndefined();
    });

    it('merges the record-specific extras', () => {
      expect(buildCollectionExtensions({}, { signature_evidence: { pointer: 'sig', digest: 'd' } })).toEqual({
        signature_evidence: { pointer: 'sig', digest: 'd' },
      });
    });

    it('refuses rendering evidence without a channel or from a channel that renders nothing', () => {
      const expected = {
        code: 'receipt_input_invalid',
        field: 'collection.rendering_evidence',
        message: 'rendering_evidence exists only for the embedded_field and embedded_field_browser channels',
      };
      expect(refusal(() => buildCollectionExtensions({ rendering_evidence: { digest: 'd' } }))).toEqual(expected);
      expect(refusal(() => buildCollectionExtensions({ collection_channel: 'embedded', rendering_evidence: { digest: 'd' } }))).toEqual(
        expected,
      );
      expect(
        buildCollectionExtensions({ collection_channel: 'embedded_field_browser', rendering_evidence: { digest: 'd' } }),
      ).toMatchObject({ rendering_evidence: { digest: 'd' } });
    });
  });
});
