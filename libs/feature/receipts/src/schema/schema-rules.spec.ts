import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { anonymousConsentInput, authorityInput, consentInput, noticeInput } from '../../test/receipt-fixtures';
import { buildAuthorizationRecord } from '../record/build-authorization-record';
import { buildConsentRecord } from '../record/build-consent-record';
import { buildNoticeRecord } from '../record/build-notice-record';
import type { ReceiptDocument } from '../record/receipt-document';
import { RECEIPT_SCHEMA_FILE, RECEIPT_SCHEMA_ID, RECEIPT_SCHEMA_ID_PATH, receiptSchemaBytes } from './published-schema';

// An independent compile of the committed file (not the service's cached validator).
const schema = JSON.parse(readFileSync(join(__dirname, 'svc-cr-2.13.schema.json'), 'utf8')) as { $id: string; $schema: string };
const ajv = new Ajv2020({ allErrors: true, strictTypes: false });
addFormats(ajv);
const validate = ajv.compile(schema);

type Mutable = Record<string, unknown> & {
  record: Record<string, unknown>;
  pii_processing: Record<string, unknown>;
  party_identification: Array<Record<string, unknown>>;
  event: Array<Record<string, unknown>>;
  extensions?: Record<string, unknown>;
  authority?: Record<string, unknown>;
};

const clone = (document: ReceiptDocument): Mutable => structuredClone(document) as unknown as Mutable;
const identified = () => clone(buildConsentRecord(consentInput()));
const anonymous = () => clone(buildConsentRecord(anonymousConsentInput()));
const notice = () => clone(buildNoticeRecord(noticeInput()));
const authorization = () => clone(buildAuthorizationRecord(authorityInput()));
const SHA = 'e'.repeat(64);

/** Spec: Durable receipt schema svc-cr/2.13 — each forbidden or conditional field rule, enforced by the schema itself. */
describe('published schema: forbidden and conditional fields', () => {
  it('is a Draft 2020-12 schema whose $id path is served beside /schemas/receipt/v2/record.json', () => {
    expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(schema.$id).toBe(RECEIPT_SCHEMA_ID);
    expect(RECEIPT_SCHEMA_ID_PATH).toMatch(/^\/schemas\/receipt\//);
    expect(receiptSchemaBytes().equals(readFileSync(RECEIPT_SCHEMA_FILE))).toBe(true);
  });

  it.each([
    ['identified consent', identified],
    ['anonymous consent', anonymous],
    ['notice', notice],
    ['authorization', authorization],
  ])('accepts the built %s record', (_name, make) => {
    expect(validate(make())).toBe(true);
  });

  const cases: Array<[string, () => Mutable]> = [
    [
      'pii_principal_id on an anonymous record',
      () => Object.assign(anonymous(), {}, { record: { ...anonymous().record, pii_principal_id: 'subj_1' } }),
    ],
    [
      'an identified record without pii_principal_id',
      () => {
        const d = identified();
        delete d.record.pii_principal_id;
        return d;
      },
    ],
    [
      'anonymous: false (only true is allowed)',
      () => {
        const d = identified();
        d.record.anonymous = false;
        return d;
      },
    ],
    [
      'a principal party on an anonymous record',
      () => {
        const d = anonymous();
        d.party_identification.push({ party_id: 'p', party_name: 'P', party_role: 'principal' });
        return d;
      },
    ],
    [
      'agent_disclosures on an authorization record',
      () => {
        const d = authorization();
        d.extensions = {
          ...d.extensions,
          agent_disclosures: [{ agent_id: 'a', disclosed_at: '2026-01-01T00:00:00Z', provenance: 'operator_declared' }],
        };
        return d;
      },
    ],
    [
      'signature_evidence on a notice record',
      () => {
        const d = notice();
        d.extensions = { ...d.extensions, signature_evidence: { pointer: 'p', digest: SHA } };
        return d;
      },
    ],
    [
      'signature_evidence on an authorization record',
      () => {
        const d = authorization();
        d.extensions = { ...d.extensions, signature_evidence: { pointer: 'p', digest: SHA } };
        return d;
      },
    ],
    [
      'rendering_evidence on a hosted-channel record',
      () => {
        const d = identified();
        d.extensions = { ...d.extensions, collection_channel: 'hosted', rendering_evidence: { digest: SHA } };
        return d;
      },
    ],
    [
      'rendering_evidence without a collection_channel',
      () => {
        const d = identified();
        d.extensions = { rendering_evidence: { digest: SHA } };
        return d;
      },
    ],
    [
      'an authority section on a consent record',
      () => {
        const d = identified();
        d.authority = authorization().authority;
        return d;
      },
    ],
    [
      'an authority section on a notice record',
      () => {
        const d = notice();
        d.authority = authorization().authority;
        return d;
      },
    ],
    [
      'an authorization record without its authority section',
      () => {
        const d = authorization();
        delete d.authority;
        return d;
      },
    ],
    [
      'an authority without withdrawal_method',
      () => {
        const d = authorization();
        delete d.authority!.withdrawal_method;
        return d;
      },
    ],
    [
      'a withdrawal method embedding a credential in the query',
      () => {
        const d = authorization();
        d.authority!.withdrawal_method = 'https://api.example/withdraw?token=secret';
        return d;
      },
    ],
    [
      'a withdrawal method with userinfo',
      () => {
        const d = identified();
        d.pii_processing.withdrawal_method = 'https://user:pw@api.example/withdraw';
        return d;
      },
    ],
    [
      'grant_integrity on a consent record',
      () => {
        const d = identified();
        d.extensions = { ...d.extensions, grant_integrity: { content_sha256: SHA, key_versions: ['oap-us-v1'] } };
        return d;
      },
    ],
    [
      'delegation_chain_root on a notice record',
      () => {
        const d = notice();
        d.extensions = { ...d.extensions, delegation_chain_root: 'x' };
        return d;
      },
    ],
    [
      'capability_manifest on a consent record',
      () => {
        const d = identified();
        d.extensions = { ...d.extensions, capability_manifest: { version: 'v1', sha256: SHA } };
        return d;
      },
    ],
    [
      'processing_locations without a transfer basis',
      () => {
        const d = identified();
        d.pii_processing.processing_locations = [{ country: 'DE' }];
        return d;
      },
    ],
    [
      'an empty processing_locations list',
      () => {
        const d = identified();
        d.pii_processing.processing_locations = [];
        return d;
      },
    ],
    [
      'validity_duration on a non-consent-given row',
      () => {
        const d = authorization();
        d.event[0]!.validity_duration = 'P1Y';
        return d;
      },
    ],
    [
      'record_reference on a withdrawal row',
      () => {
        const d = identified();
        d.event.push({
          event_time: '2026-02-01T00:00:00Z',
          entity_id: 'subj_9f2c',
          event_type: 'explicit',
          event_state: 'consent withdrawn',
          record_reference: 'x',
        });
        return d;
      },
    ],
    [
      'purpose_id on a consent given row',
      () => {
        const d = identified();
        d.event[0]!.purpose_id = 'marketing';
        return d;
      },
    ],
    [
      'approval_id on an authority row',
      () => {
        const d = authorization();
        d.event[0]!.approval_id = 'appr_1';
        return d;
      },
    ],
    [
      'event_channel on a consent given row',
      () => {
        const d = identified();
        d.event[0]!.event_channel = 'email_link';
        return d;
      },
    ],
    [
      'occurrences on a consent given row',
      () => {
        const d = identified();
        d.event[0]!.occurrences = 3;
        return d;
      },
    ],
    [
      'a reserved event state (consent invalidated)',
      () => {
        const d = identified();
        d.event[0]!.event_state = 'consent invalidated';
        return d;
      },
    ],
    [
      'a wrong conforms_to',
      () => {
        const d = identified();
        d.record.conforms_to = 'ISO/IEC 29184';
        return d;
      },
    ],
    [
      'a wrong schema_version',
      () => {
        const d = identified();
        d.record.schema_version = 'svc-cr/2.12';
        return d;
      },
    ],
    [
      'an unknown collection_channel',
      () => {
        const d = identified();
        d.extensions = { collection_channel: 'carrier_pigeon' };
        return d;
      },
    ],
    [
      'an unknown member in a section',
      () => {
        const d = identified();
        d.pii_processing.guessed = true;
        return d;
      },
    ],
    [
      'no event rows',
      () => {
        const d = identified();
        d.event = [];
        return d;
      },
    ],
    [
      'a missing required pii_processing.jurisdiction',
      () => {
        const d = identified();
        delete d.pii_processing.jurisdiction;
        return d;
      },
    ],
  ];

  it.each(cases)('refuses %s', (_name, make) => {
    expect(validate(make())).toBe(false);
  });

  it('treats an absent record_type as consent_record (signature_evidence allowed, authority forbidden)', () => {
    const d = identified();
    delete d.record.record_type;
    d.extensions = { ...d.extensions, signature_evidence: { pointer: 'p', digest: SHA } };
    expect(validate(d)).toBe(true);
    d.authority = authorization().authority;
    expect(validate(d)).toBe(false);
  });

  it('accepts the scoped-withdrawal, approval and aggregate rows where the rules allow them', () => {
    const consent = identified();
    consent.event.push({
      event_time: '2026-02-01T00:00:00Z',
      entity_id: 'subj_9f2c',
      event_type: 'explicit',
      event_state: 'consent withdrawn',
      purpose_id: 'marketing',
      event_channel: 'receipt_link',
    });
    expect(validate(consent)).toBe(true);
    const auth = authorization();
    auth.event.push({
      event_time: '2026-02-01T00:00:00Z',
      entity_id: 'subj_9f2c',
      event_type: 'explicit',
      event_state: 'approval granted',
      approval_id: 'appr_1',
    });
    auth.event.push({
      event_time: '2026-02-02T00:00:00Z',
      entity_id: 'agent_x',
      event_type: 'explicit',
      event_state: 'authority exercised',
      occurrences: 12,
    });
    expect(validate(auth)).toBe(true);
  });
});
