import { create, toBinary } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import {
  ConsentPurposeRevokedSchema,
  ConsentRecordRevokedSchema,
  ConsentRecordedSchema,
  ConsentRevokedSchema,
  EventMetaSchema,
  WebhookDeliveryFailedSchema,
} from '@svc/contracts';
import { webhookFor, type WebhookMapping } from './webhook-mapping';

const APP = 'tp_us_aaaaaaaaaaaaaaaaaaaa';
const FLOW = 'flw_us_abcdefghijklmnopqrst';
const occurredAt = new Date('2026-11-22T10:00:00.000Z');
const meta = (type: string, applicationId = APP) =>
  create(EventMetaSchema, {
    eventId: 'evt-1',
    eventType: type,
    schemaVersion: 1,
    region: 'us',
    applicationId,
    occurredAt: timestampFromDate(occurredAt),
  });

/** The fields of a recorded consent a test varies. */
interface RecordedFields {
  subjectEmail?: string;
  subjectExternalId?: string;
  outcomes?: Array<{ purpose: string; decision: string }>;
  collectionChannel?: string;
  previousRecordId?: string;
  withdrawnPurposes?: string[];
}

function recorded(fields: RecordedFields = {}, applicationId = APP): Uint8Array {
  return toBinary(
    ConsentRecordedSchema,
    create(ConsentRecordedSchema, {
      meta: meta('consent.recorded', applicationId),
      recordId: 'crec_us_1',
      flowId: FLOW,
      flowVersion: 2,
      subjectEmail: 'ada@example.com',
      subjectExternalId: 'ada-1815',
      outcomes: [
        { purpose: 'newsletter', decision: 'granted' },
        { purpose: 'offers', decision: 'declined' },
      ],
      collectionChannel: 'controller_attested',
      capturedAt: timestampFromDate(new Date('2026-11-22T09:59:00.000Z')),
      recordedAt: timestampFromDate(occurredAt),
      sendReceipt: true,
      noticeDigest: 'abc',
      ...fields,
    }),
  );
}

function webhookOf(mapping: WebhookMapping) {
  if (!('webhook' in mapping)) throw new Error(`skipped: ${mapping.skipped}`);
  return mapping.webhook;
}

describe('bus events that become webhooks under another name (spec: Events → Webhooks, consent.granted for records)', () => {
  it('a recorded consent with a granted purpose is consent.granted, keeping the bus event id, with subject reference and per-purpose outcome', () => {
    const webhook = webhookOf(webhookFor('bus-id', 'consent.recorded', recorded()));
    expect(webhook).toEqual({
      id: 'evt-1',
      type: 'consent.granted',
      applicationId: APP,
      occurredAt,
      data: {
        record_id: 'crec_us_1',
        flow_id: FLOW,
        flow_version: 2,
        subject: { email: 'ada@example.com', external_id: 'ada-1815' },
        purposes: [
          { purpose: 'newsletter', decision: 'granted' },
          { purpose: 'offers', decision: 'declined' },
        ],
        collection_channel: 'controller_attested',
        captured_at: '2026-11-22T09:59:00Z',
        recorded_at: '2026-11-22T10:00:00Z',
      },
    });
  });

  it('a recorded consent with every purpose declined is consent.denied', () => {
    const payload = recorded({
      outcomes: [
        { purpose: 'newsletter', decision: 'declined' },
        { purpose: 'offers', decision: 'declined' },
      ],
    });
    const webhook = webhookOf(webhookFor('bus-id', 'consent.recorded', payload));
    expect(webhook.type).toBe('consent.denied');
    expect(webhook.data.purposes).toEqual([
      { purpose: 'newsletter', decision: 'declined' },
      { purpose: 'offers', decision: 'declined' },
    ]);
  });

  it('carries only the subject members supplied', () => {
    expect(webhookOf(webhookFor('bus-id', 'consent.recorded', recorded({ subjectExternalId: '' }))).data.subject).toEqual({
      email: 'ada@example.com',
    });
    expect(webhookOf(webhookFor('bus-id', 'consent.recorded', recorded({ subjectEmail: '' }))).data.subject).toEqual({
      external_id: 'ada-1815',
    });
  });

  it('carries previous_record_id and withdrawn_purposes when the record replaced another', () => {
    const payload = recorded({ previousRecordId: 'crec_us_0', withdrawnPurposes: ['offers'] });
    expect(webhookOf(webhookFor('bus-id', 'consent.recorded', payload)).data).toMatchObject({
      previous_record_id: 'crec_us_0',
      withdrawn_purposes: ['offers'],
    });
  });

  it.each(['hosted', 'embedded'])(
    'skips a record of channel %s: the decision session publishes its own consent.granted/denied',
    (channel) => {
      expect(webhookFor('bus-id', 'consent.recorded', recorded({ collectionChannel: channel }))).toEqual({ skipped: 'session_record' });
    },
  );

  it.each(['embedded_field', 'embedded_field_browser', 'form_capture', 'form_platform_webhook', 'imported'])(
    'maps a record of channel %s',
    (channel) => {
      expect(webhookOf(webhookFor('bus-id', 'consent.recorded', recorded({ collectionChannel: channel }))).type).toBe('consent.granted');
    },
  );

  it('a whole record withdrawal is consent.revoked with record, flow, subject reference, purposes, channel and revoked_at', () => {
    const payload = toBinary(
      ConsentRecordRevokedSchema,
      create(ConsentRecordRevokedSchema, {
        meta: meta('consent.record_revoked'),
        recordId: 'crec_us_1',
        flowId: FLOW,
        flowVersion: 2,
        subjectEmail: 'ada@example.com',
        purposes: ['newsletter'],
        channel: 'organisation',
        revokedAt: timestampFromDate(occurredAt),
      }),
    );
    expect(webhookOf(webhookFor('bus-id', 'consent.record_revoked', payload))).toEqual({
      id: 'evt-1',
      type: 'consent.revoked',
      applicationId: APP,
      occurredAt,
      data: {
        record_id: 'crec_us_1',
        flow_id: FLOW,
        flow_version: 2,
        subject: { email: 'ada@example.com' },
        purposes: ['newsletter'],
        channel: 'organisation',
        revoked_at: '2026-11-22T10:00:00Z',
      },
    });
  });

  it("delivers a session's consent_session.revoked (decision-gateway, its only producer) as consent.revoked", () => {
    const revoked = toBinary(
      ConsentRevokedSchema,
      create(ConsentRevokedSchema, {
        meta: meta('consent_session.revoked'),
        sessionToken: 'dts_abc',
        flowId: FLOW,
        flowVersion: 2,
        userIdentifier: 'ada-1815',
        revokedBy: 'application',
      }),
    );
    const webhook = webhookOf(webhookFor('bus-id', 'consent_session.revoked', revoked));
    expect(webhook.type).toBe('consent.revoked');
    expect(webhook.data).toMatchObject({ session_token: 'dts_abc', user_identifier: 'ada-1815' });
  });

  it('passes consent.purpose_revoked through under its own name', () => {
    const payload = toBinary(
      ConsentPurposeRevokedSchema,
      create(ConsentPurposeRevokedSchema, {
        meta: meta('consent.purpose_revoked'),
        recordId: 'crec_us_1',
        purpose: 'newsletter',
        channel: 'organisation',
      }),
    );
    const webhook = webhookOf(webhookFor('bus-id', 'consent.purpose_revoked', payload));
    expect(webhook.type).toBe('consent.purpose_revoked');
    expect(webhook.data).toMatchObject({ record_id: 'crec_us_1', purpose: 'newsletter', channel: 'organisation' });
  });

  it('yields nothing for other types, events without an application and the failure of a failure notice', () => {
    expect(webhookFor('bus-id', 'consent.something_else', recorded())).toEqual({ skipped: 'not_subscribable' });
    expect(webhookFor('bus-id', 'consent.recorded', recorded({}, ''))).toEqual({ skipped: 'no_application' });
    const loop = toBinary(
      WebhookDeliveryFailedSchema,
      create(WebhookDeliveryFailedSchema, { meta: meta('webhook.delivery_failed'), failedEventType: 'webhook.delivery_failed' }),
    );
    expect(webhookFor('bus-id', 'webhook.delivery_failed', loop)).toEqual({ skipped: 'delivery_failed_loop' });
  });
});
