import { randomBytes } from 'node:crypto';
import { create, fromBinary, toBinary, type DescField, type DescMessage } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { ConsentGrantedSchema } from './gen/svc/events/v1/decisions_pb';
import { EventMetaSchema } from './gen/svc/events/v1/meta_pb';
import { ApprovalRequestedSchema } from './gen/svc/events/v1/oap_pb';
import { ConsentRecordedSchema } from './gen/svc/events/v1/records_pb';
import { PersonalData } from './gen/svc/options/v1/personal_data_pb';
import {
  PersonalDataSeal,
  SEALED_PERSONAL_DATA_FIELD,
  decodeSealedEvent,
  encodeEvent,
  personalDataOf,
  sealedFieldsOf,
} from './personal-data';
import { EVENTS } from './subjects';

/**
 * Names of fields that could hold data about a person: contact data, identifiers the organisation
 * gave a person, people's names, free text typed by someone. Every such field of an event must say
 * how it travels (`svc.options.v1.personal_data`): sealed, or declared not about a person.
 */
const LOOKS_PERSONAL =
  /email|phone|mobile|external_id|identifier|principal|approver|signer|person|user|subject|name|address|birth|proposal|reason|comment|note|request_json/;

function fieldsOf(schema: DescMessage, path: string, seen = new Set<DescMessage>()): Array<{ path: string; field: DescField }> {
  if (seen.has(schema)) return [];
  seen.add(schema);
  const out: Array<{ path: string; field: DescField }> = [];
  for (const field of schema.fields) {
    out.push({ path: `${path}.${field.name}`, field });
    const nested = field.message;
    if (nested && !nested.typeName.startsWith('google.protobuf.')) out.push(...fieldsOf(nested, `${path}.${field.name}`, seen));
  }
  return out;
}

const eventSchemas = Object.entries(EVENTS).map(([type, spec]) => ({ type, schema: spec.schema as DescMessage }));
const kek = (): string => randomBytes(32).toString('base64');

describe('personal data inventory of bus events', () => {
  it('marks every event field whose name looks personal as sealed or as not about a person', () => {
    const looksPersonal = eventSchemas
      .flatMap(({ type, schema }) => fieldsOf(schema, type))
      .filter(({ field }) => LOOKS_PERSONAL.test(field.name));
    expect(looksPersonal.map(({ path }) => path)).toEqual(
      expect.arrayContaining([
        'consent.recorded.subject_email',
        'consent_session.granted.user_identifier',
        'authority.created.principal_id',
      ]),
    );
    const unmarked = looksPersonal
      .filter(({ field }) => field.name !== SEALED_PERSONAL_DATA_FIELD && personalDataOf(field) === PersonalData.UNSPECIFIED)
      .map(({ path }) => path);
    // A new field listed here must carry [(svc.options.v1.personal_data) = PERSONAL_DATA_SEALED] when a
    // consumer needs it, be dropped when none does, or be declared PERSONAL_DATA_NONE.
    expect(unmarked).toEqual([]);
  });

  it('gives every event with sealed fields the bytes field that carries them, and seals only top-level strings', () => {
    for (const { type, schema } of eventSchemas) {
      const sealed = sealedFieldsOf(schema);
      const nestedSealed = fieldsOf(schema, type).filter(
        ({ path, field }) => path.split('.').length > type.split('.').length + 1 && personalDataOf(field) === PersonalData.SEALED,
      );
      expect({ type, nestedSealed }).toEqual({ type, nestedSealed: [] });
      if (sealed.length === 0) continue;
      const carrier = schema.fields.find((f) => f.name === SEALED_PERSONAL_DATA_FIELD);
      expect({ type, carrier: carrier?.scalar }).toEqual({ type, carrier: 12 /* ScalarType.BYTES */ });
    }
  });

  it('carries the consent record subject, the session person and the escalation principal sealed', () => {
    const sealedNames = (schema: DescMessage) => sealedFieldsOf(schema).map((f) => f.name);
    expect(sealedNames(EVENTS['consent.recorded'].schema)).toEqual(['subject_external_id', 'subject_email']);
    expect(sealedNames(EVENTS['consent_session.granted'].schema)).toEqual(['user_identifier']);
    expect(sealedNames(EVENTS['oap.approval_requested'].schema)).toEqual(['principal_id', 'approvers', 'request_json', 'proposal_json']);
    expect(sealedNames(EVENTS['authority.created'].schema)).toEqual(['principal_id', 'reason']);
  });
});

describe('encodeEvent / decodeSealedEvent', () => {
  const meta = (eventId = 'evt-1') =>
    create(EventMetaSchema, {
      eventId,
      eventType: 'consent.recorded',
      region: 'us',
      applicationId: 'app_us_1',
      occurredAt: timestampFromDate(new Date('2026-11-25T10:00:00Z')),
    });
  const recorded = (eventId?: string) =>
    create(ConsentRecordedSchema, {
      meta: meta(eventId),
      recordId: 'crec_us_1',
      flowId: 'flw_us_1',
      flowVersion: 2,
      subjectEmail: 'ada@example.com',
      subjectExternalId: 'ada-1815',
      collectionChannel: 'imported',
    });

  it('keeps sealed fields out of the bytes and restores them with the region key', () => {
    const us = PersonalDataSeal.fromKeyEncryptionKey(kek(), 'us');
    const message = recorded();
    const bytes = encodeEvent(ConsentRecordedSchema, message, us);
    // The caller's message is left as it was.
    expect(message).toMatchObject({
      subjectEmail: 'ada@example.com',
      subjectExternalId: 'ada-1815',
      sealedPersonalData: new Uint8Array(0),
    });
    const text = Buffer.from(bytes).toString('latin1');
    expect(text).not.toContain('ada@example.com');
    expect(text).not.toContain('ada-1815');
    expect(text).toContain('crec_us_1');

    expect(decodeSealedEvent(ConsentRecordedSchema, bytes, us)).toMatchObject({
      recordId: 'crec_us_1',
      subjectEmail: 'ada@example.com',
      subjectExternalId: 'ada-1815',
      sealedPersonalData: new Uint8Array(0),
    });
  });

  it('leaves sealed fields empty for a consumer without the key, and refuses another region key', () => {
    const key = kek();
    const bytes = encodeEvent(ConsentRecordedSchema, recorded(), PersonalDataSeal.fromKeyEncryptionKey(key, 'us'));
    expect(decodeSealedEvent(ConsentRecordedSchema, bytes, undefined)).toMatchObject({
      recordId: 'crec_us_1',
      subjectEmail: '',
      subjectExternalId: '',
    });
    // Same key-encryption key, another region: a different bus key.
    expect(() => decodeSealedEvent(ConsentRecordedSchema, bytes, PersonalDataSeal.fromKeyEncryptionKey(key, 'eu'))).toThrow(
      'does not open',
    );
    expect(() => decodeSealedEvent(ConsentRecordedSchema, bytes, PersonalDataSeal.fromKeyEncryptionKey(kek(), 'us'))).toThrow(
      'does not open',
    );
  });

  it('binds the envelope to its event: moved onto another event it does not open', () => {
    const us = PersonalDataSeal.fromKeyEncryptionKey(kek(), 'us');
    const sealed = fromBinary(ConsentRecordedSchema, encodeEvent(ConsentRecordedSchema, recorded('evt-1'), us));
    const other = fromBinary(ConsentRecordedSchema, encodeEvent(ConsentRecordedSchema, recorded('evt-2'), us));
    other.sealedPersonalData = sealed.sealedPersonalData;
    expect(() => decodeSealedEvent(ConsentRecordedSchema, toBinary(ConsentRecordedSchema, other), us)).toThrow('does not open');
  });

  it('refuses to encode personal data in clear when no bus key is configured, and encodes events without any', () => {
    expect(() => encodeEvent(ConsentRecordedSchema, recorded(), undefined)).toThrow('no bus key');
    const anonymous = create(ConsentGrantedSchema, { meta: meta(), sessionToken: 'dts_1', purposes: ['newsletter'] });
    expect(decodeSealedEvent(ConsentGrantedSchema, encodeEvent(ConsentGrantedSchema, anonymous, undefined), undefined)).toMatchObject({
      sessionToken: 'dts_1',
      userIdentifier: '',
    });
  });

  it('seals repeated fields and free text', () => {
    const us = PersonalDataSeal.fromKeyEncryptionKey(kek(), 'us');
    const requested = create(ApprovalRequestedSchema, {
      meta: meta(),
      escalationId: 'esc_us_1',
      principalId: 'user-42',
      approvers: ['user-42', 'user-43'],
      requestJson: '{"context":{"principal_id":"user-42"}}',
    });
    const bytes = encodeEvent(ApprovalRequestedSchema, requested, us);
    expect(Buffer.from(bytes).toString('latin1')).not.toMatch(/user-4[23]/);
    expect(decodeSealedEvent(ApprovalRequestedSchema, bytes, us)).toMatchObject({
      escalationId: 'esc_us_1',
      principalId: 'user-42',
      approvers: ['user-42', 'user-43'],
      requestJson: requested.requestJson,
    });
  });
});
