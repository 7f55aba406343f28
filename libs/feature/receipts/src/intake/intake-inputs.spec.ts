import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import {
  AuthorityChangedSchema,
  ConsentRecordedSchema,
  FlowNoticeSchema,
  GetFlowReplySchema,
  PurposeOutcomeSchema,
  type ConsentRecorded,
} from '@svc/contracts';
import { buildAuthorizationRecord } from '../record/build-authorization-record';
import { buildConsentRecord } from '../record/build-consent-record';
import { noticeHash } from '../record/notice-hash';
import { validateReceiptDocument } from '../schema/published-schema';
import { authorityBounds, authorityInput } from './authority-input';
import { UnreceiptableRecord, consentRecordInput, controllerParty, flowOfEvent, noticeContent } from './consent-record-input';
import { derivePseudonym, subjectReference } from './principal-pseudonyms';

const APP = 'app_us_aaaaaaaaaaaaaaaaaaaa';
const flow = create(GetFlowReplySchema, {
  found: true,
  flowId: 'flw_us_aaaaaaaaaaaaaaaaaaaa',
  version: 2,
  status: 'active',
  activeVersion: 2,
  consentDuration: 'P6M',
  locale: 'en-GB',
  title: 'Stay in touch',
  description: '',
  policyUrl: 'https://acme.example/privacy',
  purposes: [
    { key: 'newsletter', label: 'Newsletter', description: 'Monthly', mechanism: 'consent', required: false },
    { key: 'offers', label: 'Partner offers', description: 'Offers', mechanism: 'consent', required: false },
  ],
});

function recorded(overrides: Partial<ConsentRecorded> = {}): ConsentRecorded {
  const base = create(ConsentRecordedSchema, {
    meta: { applicationId: APP, eventType: 'consent.recorded' },
    recordId: 'crec_us_aaaaaaaaaaaaaaaaaaaa',
    flowId: flow.flowId,
    flowVersion: 2,
    subjectEmail: 'ada@example.com',
    outcomes: [
      { purpose: 'newsletter', decision: 'granted' },
      { purpose: 'offers', decision: 'declined' },
    ],
    collectionChannel: 'controller_attested',
    capturedAt: timestampFromDate(new Date('2026-03-01T09:00:00Z')),
    recordedAt: timestampFromDate(new Date('2026-03-01T09:00:02Z')),
  });
  return { ...base, ...overrides };
}

const controller = controllerParty(APP, 'Acme Ltd');
const principal = { kind: 'identified', pii_principal_id: 'psn_x' } as const;

/** Spec: Durable receipt schema svc-cr/2.13 (absence rule), Captured consent and receipts; issue 7 wiring. */
describe('receipt inputs from consent-records and oap-authorizer events', () => {
  it('the wording consent.recorded carries makes the same receipt as the flow version read back; an older event carries none', () => {
    const { locale, title, description, policyUrl, purposes, consentDuration } = flow;
    const shown = purposes.map(({ key, label, description, mechanism, required }) => ({ key, label, description, mechanism, required }));
    const event = recorded({
      notice: create(FlowNoticeSchema, { locale, title, description, policyUrl, purposes: shown, consentDuration }),
    });
    const carried = flowOfEvent(event);
    expect(carried).toBeDefined();
    expect(buildConsentRecord(consentRecordInput(event, carried!, controller, principal))).toEqual(
      buildConsentRecord(consentRecordInput(event, flow, controller, principal)),
    );
    expect(flowOfEvent(recorded())).toBeUndefined();
  });

  it('a consent record: granted purposes with the labels shown, the flow version as notice, validity from the flow', () => {
    const input = consentRecordInput(recorded({ previousRecordId: 'crec_us_bbbbbbbbbbbbbbbbbbbb' }), flow, controller, principal);
    const document = buildConsentRecord(input);
    expect(validateReceiptDocument(document)).toEqual({ valid: true });
    expect(document.pii_processing).toMatchObject({
      language: 'en-GB',
      privacy_notice: {
        reference: 'flw_us_aaaaaaaaaaaaaaaaaaaa@v2',
        hash: noticeHash(noticeContent(flow)),
        url: 'https://acme.example/privacy',
      },
      purposes: [{ purpose_id: 'newsletter', label: 'Newsletter', lawful_basis: 'consent' }],
    });
    expect(document.event).toEqual([
      {
        event_time: '2026-03-01T09:00:00.000Z',
        validity_duration: 'P6M',
        entity_id: 'psn_x',
        event_type: 'explicit',
        event_state: 'consent given',
        record_reference: 'crec_us_bbbbbbbbbbbbbbbbbbbb',
      },
    ]);
    expect(document.extensions).toEqual({
      collection_channel: 'controller_attested',
      consent_flow_id: flow.flowId,
      captured_at: '2026-03-01T09:00:00.000Z',
      recorded_at: '2026-03-01T09:00:02.000Z',
    });
  });

  it('maps rendering evidence (rendered channels only), the collection platform and the notice digest when the event states them', () => {
    const digest = 'ab'.repeat(32);
    const rendered = buildConsentRecord(
      consentRecordInput(
        recorded({ collectionChannel: 'embedded_field_browser', renderingEvidenceDigest: digest }),
        flow,
        controller,
        principal,
      ),
    );
    expect(rendered.extensions).toMatchObject({ collection_channel: 'embedded_field_browser', rendering_evidence: { digest } });
    expect(validateReceiptDocument(rendered)).toEqual({ valid: true });
    const notRendered = buildConsentRecord(
      consentRecordInput(recorded({ collectionChannel: 'form_capture', renderingEvidenceDigest: digest }), flow, controller, principal),
    );
    expect(notRendered.extensions).not.toHaveProperty('rendering_evidence');
    const platform = buildConsentRecord(
      consentRecordInput(
        recorded({ collectionChannel: 'form_platform_webhook', collectionPlatform: 'typeform' }),
        flow,
        controller,
        principal,
      ),
    );
    expect(platform.extensions).toMatchObject({ collection_channel: 'form_platform_webhook', collection_platform: 'typeform' });
    const drifted = consentRecordInput(recorded({ noticeDigest: `sha256:${'CD'.repeat(32)}` }), flow, controller, principal);
    expect(drifted.collection.wording_drift).toEqual({ detected: true, presented_hash: 'cd'.repeat(32) });
    const same = consentRecordInput(recorded({ noticeDigest: noticeHash(noticeContent(flow)) }), flow, controller, principal);
    expect(same.collection.wording_drift).toEqual({ detected: false });
    // A digest of another form cannot be compared with the notice hash: nothing is claimed.
    const opaque = consentRecordInput(recorded({ noticeDigest: 'md5:abc' }), flow, controller, principal);
    expect(opaque.collection).not.toHaveProperty('wording_drift');
    expect(opaque.collection).not.toHaveProperty('collection_platform');
  });

  it('refuses a record whose purpose the flow version does not show', () => {
    expect(() =>
      consentRecordInput(
        recorded({ outcomes: [create(PurposeOutcomeSchema, { purpose: 'profiling', decision: 'granted' })] }),
        flow,
        controller,
        principal,
      ),
    ).toThrow(UnreceiptableRecord);
  });

  it('an application without a known name is the controller by its id, as declared', () => {
    expect(controllerParty(APP, undefined)).toEqual({
      party_id: APP,
      party_name: APP,
      party_role: 'controller',
      party_type: 'organization',
      provenance: 'declared',
    });
  });

  it('pseudonyms: stable per reference (email case-insensitive), different across references and secrets, never the reference itself', () => {
    const secret = Buffer.alloc(32, 7);
    const ada = derivePseudonym(secret, subjectReference({ email: 'Ada@Example.com', externalId: 'a-1' })!);
    expect(ada).toMatch(/^psn_[A-Za-z0-9_-]{43}$/);
    expect(derivePseudonym(secret, subjectReference({ email: 'ada@example.com', externalId: '' })!)).toBe(ada);
    expect(derivePseudonym(secret, subjectReference({ email: '', externalId: 'a-1' })!)).not.toBe(ada);
    expect(derivePseudonym(Buffer.alloc(32, 8), { kind: 'email', value: 'ada@example.com' })).not.toBe(ada);
    expect(subjectReference({ email: '', externalId: '' })).toBeUndefined();
  });

  it('an authority: bounds (oap_sequence_bounds as sequence_bounds), window, cooling-off, purposes, parties, withdrawal URL', () => {
    const event = create(AuthorityChangedSchema, {
      meta: { applicationId: APP, eventType: 'authority.created' },
      authorityId: 'auth_us_aaaaaaaaaaaaaaaaaaaa',
      agentId: 'agent_us_aaaaaaaaaaaaaaaaaaaa',
      principalId: 'user_1',
      status: 'active',
      boundsJson: '{"oap_sequence_bounds":{"max_per_minute":5},"scope_bounds":{"allowed":["a:b"]}}',
      validFrom: '2026-03-01T09:00:00.000Z',
      validUntil: '2027-01-01T00:00:00.000Z',
      purposes: ['shopping', 'shopping'],
      coolingOffSeconds: 90,
      createdAt: '2026-03-01T09:00:00.000Z',
      agentName: 'shopper',
      withdrawalUrl: 'https://api.example/api/v1/authorities/auth_us_aaaaaaaaaaaaaaaaaaaa/revoke',
    });
    const document = buildAuthorizationRecord(authorityInput(event, controller, 'psn_y'));
    expect(validateReceiptDocument(document)).toEqual({ valid: true });
    expect(document.authority).toEqual({
      scope_bounds: { allowed: ['a:b'] },
      sequence_bounds: { max_per_minute: 5 },
      valid_from: '2026-03-01T09:00:00.000Z',
      valid_until: '2027-01-01T00:00:00.000Z',
      cooling_off: 'PT90S',
      withdrawal_method: 'https://api.example/api/v1/authorities/auth_us_aaaaaaaaaaaaaaaaaaaa/revoke',
    });
    expect(document.pii_processing).toMatchObject({ language: 'und', purposes: [{ purpose_id: 'shopping', label: 'shopping' }] });
    expect(document.party_identification.map((p) => [p.party_role, p.party_name])).toEqual([
      ['controller', 'Acme Ltd'],
      ['agent', 'shopper'],
    ]);
    expect(document.extensions).toEqual({ recorded_at: '2026-03-01T09:00:00.000Z' });
    expect(() => authorityInput({ ...event, withdrawalUrl: '' }, controller, 'psn_y')).toThrow(UnreceiptableRecord);
    expect(() => authorityBounds('[1]')).toThrow(UnreceiptableRecord);
  });
});
