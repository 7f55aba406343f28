import { create, toBinary } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { ApprovalDecidedSchema, EventMetaSchema, WebhookDeliveryFailedSchema } from '@svc/contracts';
import { webhookBody, webhookEventFromBus } from './webhook-body';

const occurredAt = new Date('2026-11-22T10:00:00.000Z');
const meta = (type: string) =>
  create(EventMetaSchema, {
    eventId: 'evt-1',
    eventType: type,
    schemaVersion: 1,
    region: 'us',
    applicationId: 'tp_us_aaaaaaaaaaaaaaaaaaaa',
    occurredAt: timestampFromDate(occurredAt),
  });

describe('webhook body (spec: a JSON body with the key `event`)', () => {
  it('decodes a known event into {event, id, created_at, application_id, data} with proto field names', () => {
    const message = create(WebhookDeliveryFailedSchema, {
      meta: meta('webhook.delivery_failed'),
      subscriptionId: 'whsub_x',
      attempts: 5,
      reason: 'attempts_exhausted',
    });
    const event = webhookEventFromBus('bus-id', 'webhook.delivery_failed', toBinary(WebhookDeliveryFailedSchema, message));
    expect(event).toBeDefined();
    const body = JSON.parse(webhookBody(event!)) as Record<string, unknown>;
    expect(body).toMatchObject({
      event: 'webhook.delivery_failed',
      id: 'evt-1',
      created_at: '2026-11-22T10:00:00.000Z',
      application_id: 'tp_us_aaaaaaaaaaaaaaaaaaaa',
    });
    expect(body.data).toMatchObject({
      subscription_id: 'whsub_x',
      attempts: 5,
      reason: 'attempts_exhausted',
      subscription_disabled: false,
      last_status_code: 0,
    });
    expect(body.data).not.toHaveProperty('meta');
  });

  it("leaves out the application's own name and jurisdiction, stamped on the event for its receipt", () => {
    const message = create(ApprovalDecidedSchema, {
      meta: meta('approval.granted'),
      reference: 'payout-77',
      outcome: 'approved',
      application: { name: 'Acme Payments', jurisdiction: 'GB' },
    });
    const event = webhookEventFromBus('bus-id', 'approval.granted', toBinary(ApprovalDecidedSchema, message));
    expect(event?.data).toMatchObject({ reference: 'payout-77', outcome: 'approved' });
    expect(event?.data).not.toHaveProperty('application');
  });

  it('keeps the envelope of a type this build does not know, with empty data, instead of dropping it', () => {
    const message = create(WebhookDeliveryFailedSchema, { meta: meta('consent.purpose_revoked'), subscriptionId: 'whsub_x' });
    const event = webhookEventFromBus('bus-id', 'consent.future_type', toBinary(WebhookDeliveryFailedSchema, message));
    expect(event).toEqual({ id: 'evt-1', type: 'consent.future_type', applicationId: 'tp_us_aaaaaaaaaaaaaaaaaaaa', occurredAt, data: {} });
  });

  it('yields nothing for an event without an application', () => {
    const message = create(WebhookDeliveryFailedSchema, { meta: create(EventMetaSchema, { eventId: 'e' }) });
    expect(webhookEventFromBus('bus-id', 'webhook.delivery_failed', toBinary(WebhookDeliveryFailedSchema, message))).toBeUndefined();
  });
});
