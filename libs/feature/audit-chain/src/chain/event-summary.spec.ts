import { create, toBinary } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { createHash } from 'node:crypto';
import {
  ApplicationCreatedSchema,
  AuditEventEnvelopeSchema,
  ConsentRecordRevokedSchema,
  ConsentRecordedSchema,
  EventMetaSchema,
} from '@svc/contracts';
import { summariseEvent } from './event-summary';

const occurredAt = new Date('2026-02-03T04:05:06.000Z');
const meta = (eventType: string) =>
  create(EventMetaSchema, {
    eventId: 'evt-1',
    eventType,
    schemaVersion: 1,
    region: 'us',
    applicationId: 'tp_us_aaaaaaaaaaaaaaaaaaaa',
    occurredAt: timestampFromDate(occurredAt),
  });

describe('summariseEvent', () => {
  it('decodes a known event type to proto-JSON and lifts type, id, application and occurred_at out of meta', () => {
    const data = toBinary(
      ApplicationCreatedSchema,
      create(ApplicationCreatedSchema, {
        meta: meta('application.created'),
        applicationId: 'tp_us_aaaaaaaaaaaaaaaaaaaa',
        name: 'demo',
        environment: 'development',
        mode: 'conductor',
      }),
    );
    expect(summariseEvent({ id: 'evt-1', eventType: 'application.created', data })).toEqual({
      type: 'application.created',
      sourceEventId: 'evt-1',
      applicationId: 'tp_us_aaaaaaaaaaaaaaaaaaaa',
      agentId: undefined,
      occurredAt,
      data: {
        event_id: 'evt-1',
        schema_version: 1,
        encoding: 'json',
        payload: { applicationId: 'tp_us_aaaaaaaaaaaaaaaaaaaa', name: 'demo', environment: 'development', mode: 'conductor' },
      },
    });
  });

  it('keeps only the SHA-256 of the sealed personal fields, never their ciphertext', () => {
    const sealed = Buffer.from('ciphertext of the subject email');
    const data = toBinary(
      ConsentRecordRevokedSchema,
      create(ConsentRecordRevokedSchema, { meta: meta('consent.record_revoked'), recordId: 'crec_us_x', sealedPersonalData: sealed }),
    );
    const summary = summariseEvent({ id: 'evt-3', eventType: 'consent.record_revoked', data });
    const payload = (summary.data as { payload: Record<string, unknown> }).payload;
    expect(payload).not.toHaveProperty('sealedPersonalData');
    expect(payload.sealedPersonalDataSha256).toBe(createHash('sha256').update(sealed).digest('hex'));
    expect(JSON.stringify(summary)).not.toContain(sealed.toString('base64'));
  });

  it("leaves out consent.recorded's copy of its flow version's wording; the version stays named", () => {
    const data = toBinary(
      ConsentRecordedSchema,
      create(ConsentRecordedSchema, {
        meta: meta('consent.recorded'),
        recordId: 'crec_us_x',
        flowId: 'flw_us_x',
        flowVersion: 2,
        notice: { locale: 'en', title: 'Stay in touch', purposes: [{ key: 'newsletter', label: 'Newsletter', mechanism: 'consent' }] },
        application: { name: 'demo' },
      }),
    );
    const payload = (summariseEvent({ id: 'evt-4', eventType: 'consent.recorded', data }).data as { payload: Record<string, unknown> })
      .payload;
    expect(payload).toMatchObject({ recordId: 'crec_us_x', flowId: 'flw_us_x', flowVersion: 2, application: { name: 'demo' } });
    expect(payload).not.toHaveProperty('notice');
  });

  it('keeps an unknown type (a newer publisher) as base64, still reading its meta header', () => {
    const data = toBinary(AuditEventEnvelopeSchema, create(AuditEventEnvelopeSchema, { meta: meta('consent.test_only_unknown') }));
    const summary = summariseEvent({ id: 'evt-2', eventType: 'consent.test_only_unknown', data });
    expect(summary).toMatchObject({
      type: 'consent.test_only_unknown',
      sourceEventId: 'evt-2',
      applicationId: 'tp_us_aaaaaaaaaaaaaaaaaaaa',
      occurredAt,
    });
    expect(summary.data).toEqual({
      event_id: 'evt-2',
      schema_version: 1,
      encoding: 'protobuf_base64',
      payload: Buffer.from(data).toString('base64'),
    });
  });

  it('throws on bytes that are not protobuf (the consumer records them as undecodable)', () => {
    expect(() =>
      summariseEvent({ id: 'evt-3', eventType: 'consent.test_only_unknown', data: new Uint8Array([0xff, 0xff, 0xff]) }),
    ).toThrow();
  });
});
