import type { AuthorityInput, ConsentRecordInput, NoticeContent, NoticeRecordInput } from '../src';

/** Test inputs shaped like what consent-records and oap-authorizer will hand over. */

export const NOTICE: NoticeContent = {
  locale: 'en-GB',
  title: 'Share your order history',
  description: 'Acme uses your order history to tailor offers.',
  policy_url: 'https://acme.example/privacy',
  purposes: [
    { name: 'marketing', label: 'Marketing emails', description: 'Offers by email', mechanism: 'consent', required: false },
    { name: 'analytics', label: 'Product analytics', description: 'Aggregate usage', mechanism: 'legitimate_interest', required: false },
  ],
};

export function consentInput(overrides: Partial<ConsentRecordInput> = {}): ConsentRecordInput {
  return {
    kind: 'consent_record',
    record_id: 'crec_us_aaaaaaaaaaaaaaaaaaaa',
    application_id: 'tp_us_aaaaaaaaaaaaaaaaaaaa',
    principal: { kind: 'identified', pii_principal_id: 'subj_9f2c' },
    notice: { reference: 'flw_us_aaaaaaaaaaaaaaaaaaaa@v1', content: NOTICE },
    notice_url: 'https://acme.example/privacy',
    decisions: [
      { purpose_id: 'marketing', label: 'Marketing emails', decision: 'granted', lawful_basis: 'consent' },
      { purpose_id: 'analytics', label: 'Product analytics', decision: 'granted', lawful_basis: 'legitimate_interest' },
      { purpose_id: 'profiling', label: 'Profiling', decision: 'declined', lawful_basis: 'consent' },
    ],
    given_at: '2026-01-01T10:00:00.000Z',
    validity_duration: 'P1Y',
    parties: [
      {
        party_id: 'tp_us_aaaaaaaaaaaaaaaaaaaa',
        party_name: 'Acme Ltd',
        party_role: 'controller',
        party_type: 'organization',
        provenance: 'display_name',
      },
      { party_id: 'subj_9f2c', party_name: 'Subject 9f2c', party_role: 'principal', party_type: 'natural_person', provenance: 'declared' },
    ],
    processing: {
      jurisdiction: 'GB',
      storage_locations: ['US'],
      withdrawal_method: 'https://api.example/withdraw/crec_us_aaaaaaaaaaaaaaaaaaaa',
      recipient_third_parties: [],
      privacy_rights: ['access', 'erasure'],
    },
    collection: {
      collection_channel: 'hosted',
      delivery_mode: 'embed',
      consent_flow_id: 'flw_us_aaaaaaaaaaaaaaaaaaaa',
      recorded_at: '2026-01-01T10:00:01Z',
    },
    ...overrides,
  };
}

export function anonymousConsentInput(overrides: Partial<ConsentRecordInput> = {}): ConsentRecordInput {
  return consentInput({
    record_id: 'crec_us_bbbbbbbbbbbbbbbbbbbb',
    principal: { kind: 'anonymous' },
    parties: [{ party_id: 'tp_us_aaaaaaaaaaaaaaaaaaaa', party_name: 'Acme Ltd', party_role: 'controller' }],
    validity_duration: undefined,
    ...overrides,
  });
}

export function noticeInput(overrides: Partial<NoticeRecordInput> = {}): NoticeRecordInput {
  return {
    kind: 'notice_record',
    record_id: 'dscl_us_aaaaaaaaaaaaaaaaaaaa',
    application_id: 'tp_us_aaaaaaaaaaaaaaaaaaaa',
    principal: { kind: 'anonymous' },
    notice: { reference: 'flw_us_aaaaaaaaaaaaaaaaaaaa@v1', content: NOTICE },
    language: 'en',
    shown_at: '2026-01-01T09:00:00Z',
    shown_by: 'agent_us_aaaaaaaaaaaaaaaaaaaa',
    parties: [
      { party_id: 'tp_us_aaaaaaaaaaaaaaaaaaaa', party_name: 'Acme Ltd', party_role: 'controller' },
      {
        party_id: 'agent_us_aaaaaaaaaaaaaaaaaaaa',
        party_name: 'agent_us_aaaaaaaaaaaaaaaaaaaa',
        party_role: 'agent',
        party_type: 'software_agent',
        provenance: 'declared',
      },
    ],
    processing: {},
    collection: {
      collection_channel: 'controller_attested',
      agent_disclosures: [
        { agent_id: 'agent_us_aaaaaaaaaaaaaaaaaaaa', disclosed_at: '2026-01-01T09:00:00.000Z', provenance: 'operator_declared' },
      ],
    },
    ...overrides,
  };
}

export function authorityInput(overrides: Partial<AuthorityInput> = {}): AuthorityInput {
  return {
    kind: 'authorization_record',
    record_id: 'auth_us_aaaaaaaaaaaaaaaaaaaa',
    application_id: 'tp_us_aaaaaaaaaaaaaaaaaaaa',
    pii_principal_id: 'subj_9f2c',
    language: 'en',
    purposes: [{ purpose_id: 'purchasing', label: 'Buy groceries on my behalf' }],
    bounds: {
      scope_bounds: { allowed: ['orders:write'] },
      value_bounds: { currency: 'EUR', per_action: '50.00' },
      sequence_bounds: { max_per_minute: 5 },
    },
    valid_from: '2026-01-01T00:00:00Z',
    valid_until: '2026-07-01T00:00:00Z',
    cooling_off_seconds: 0,
    withdrawal_method: 'https://api.example/authorities/auth_us_aaaaaaaaaaaaaaaaaaaa/withdraw',
    granted_at: '2026-01-01T00:00:00Z',
    parties: [
      { party_id: 'tp_us_aaaaaaaaaaaaaaaaaaaa', party_name: 'Acme Ltd', party_role: 'controller' },
      {
        party_id: 'agent_us_aaaaaaaaaaaaaaaaaaaa',
        party_name: 'Shopper bot',
        party_role: 'agent',
        party_type: 'software_agent',
        provenance: 'declared',
      },
    ],
    processing: {},
    extensions: { grant_integrity: { content_sha256: 'a'.repeat(64), key_versions: ['oap-us-v1'] }, delegation_chain_root: 'subj_9f2c' },
    ...overrides,
  };
}
