import type { DescMessage } from '@bufbuild/protobuf';
import { EVENTS, WEBHOOK_SOURCE_EVENT_TYPES, webhookTypesOf, type WebhookEventType, type WebhookSourceEventType } from '@svc/contracts';
import { protoMessageSchemas, type DocumentedWebhook } from '@svc/server';
import { FIELDS_NOT_IN_WEBHOOK_DATA } from './deliveries/webhook-body';
import { ConsentRecordRevokedWebhookData, ConsentRecordWebhookData, TestWebhookData } from './intake/webhook-data.response';
import { SUBSCRIBABLE_EVENT_TYPES, TEST_EVENT_TYPE, type SubscribableEventType } from './webhook-events';

type Json = Record<string, unknown>;

const SUMMARIES: Record<SubscribableEventType | typeof TEST_EVENT_TYPE, string> = {
  'consent.granted': 'A person granted at least one purpose (a decision session, or a consent recorded through the API or a capture)',
  'consent.denied': 'A person granted no purpose',
  'consent.revoked': 'A consent was withdrawn (a session revoked, or a recorded consent withdrawn)',
  'consent.purpose_revoked': 'One purpose of a consent was withdrawn',
  'consent.expired':
    "A consent reached the end of its term or of a data policy's retention and the retention sweep ended it (data: record, purposes granted until then, reason consent_duration|retention_policy, policy, expired_at)",
  'approval.granted': 'Approvers granted an escalated agent request',
  'approval.denied': 'Approvers denied an escalated agent request',
  'approval.countered': 'An approver countered an escalated agent request with other bounds',
  'flow.activated': 'A flow version became the active one',
  'signature.signed': 'A signature request was signed',
  'signature.declined': 'A signature request was declined',
  'signature.expired': 'A signature request expired unsigned',
  'signature.countered': 'A signature request was answered with a counter-proposal',
  'agreement.activated': 'A multi-party agreement reached its quorum of signatures and is binding (once)',
  'agreement.declined': 'A multi-party agreement can no longer reach its quorum',
  'agreement.expired': 'A multi-party agreement passed its deadline before its quorum',
  'agreement.withdrawn': 'The application withdrew a multi-party agreement before its outcome',
  'agreement.amended': 'The parties adopted an amendment of an active agreement by its quorum (once): its document is now the amendment’s',
  'collaboration.member_invited': 'The owner invited an application or a person into a collaboration',
  'collaboration.member_accepted': 'An invited application or person accepted its invitation into a collaboration',
  'collaboration.member_declined': 'An invited application or person declined its invitation into a collaboration',
  'collaboration.member_revoked': 'The owner removed an invitation or a member from a collaboration',
  'agreement.amendment_rejected':
    'An amendment of an active agreement can no longer reach its quorum (declined, countered or expired); the agreement keeps its document',
  'delegation.offered': 'A person offered a delegation grant to another person (or an operator created one on reviewed evidence)',
  'delegation.accepted': 'The delegate accepted a delegation grant',
  'delegation.revoked': 'A delegation grant was revoked by the principal or the delegate',
  'grant.revoked':
    'An OAP grant was revoked: its agent token and runtime receipt no longer hold (svc-verify answers revoked in every region)',
  'authority.revoked': "An agent's authority was revoked: no grant is issued under it any more",
  'data_request.received':
    'A data subject request (access, portability, rectification, erasure, objection, restriction) was received; its legal clock runs 30 days (data: request, person, kind, status, due_at)',
  'data_request.in_progress': 'The application started working on a data subject request',
  'data_request.extended':
    'A data subject request was extended once, with a reason, by up to 60 days (GDPR Art. 12(3)); due_at is the new deadline',
  'data_request.completed':
    'A data subject request was fulfilled (an access or portability export is ready, an erasure done, an objection or restriction recorded, contact data rectified)',
  'data_request.rejected': 'A data subject request was rejected with a reason (kept in the home region, not in the event)',
  'webhook.delivery_failed': 'A delivery failed for good after its last attempt',
  'webhook.test': 'A test delivery requested through the API (never subscribable)',
};

type MappedDataShape = typeof ConsentRecordWebhookData | typeof ConsentRecordRevokedWebhookData;

/**
 * The `data` the intake's mapping builds for the bus events the catalogue delivers under another
 * name (`webhook.as`) with a shape of their own: consent-records' record events, beside the session
 * events of that name. The session events (`consent_session.*`) keep their message as `data`.
 */
const MAPPED_DATA: Partial<Record<Exclude<WebhookSourceEventType, WebhookEventType>, MappedDataShape>> = {
  'consent.recorded': ConsentRecordWebhookData,
  'consent.record_revoked': ConsentRecordRevokedWebhookData,
};

/** The shape the mapping builds for `type`, when it builds one. */
function mappedShape(type: WebhookSourceEventType): MappedDataShape | undefined {
  return Object.prototype.hasOwnProperty.call(MAPPED_DATA, type) ? MAPPED_DATA[type as keyof typeof MAPPED_DATA] : undefined;
}

/** Headers of every delivery: the `X-Svc-*` signature and ids, and the Standard Webhooks ones when the subscription opted in. */
export const WEBHOOK_DELIVERY_HEADERS: Record<string, Json> = {
  WebhookSvcSignature: {
    name: 'X-Svc-Signature',
    in: 'header',
    required: true,
    description:
      '`v1=<hex>`: HMAC-SHA256 keyed with the subscription secret over `<X-Svc-Timestamp>.<raw body>`; during a rotation both secrets sign, space separated',
    schema: { type: 'string', pattern: '^v1=[0-9a-f]{64}( v1=[0-9a-f]{64})*$' },
  },
  WebhookSvcTimestamp: {
    name: 'X-Svc-Timestamp',
    in: 'header',
    required: true,
    description: 'Unix seconds of the attempt; refuse deliveries older than 5 minutes',
    schema: { type: 'string', pattern: '^[0-9]+$' },
  },
  WebhookSvcEventId: {
    name: 'X-Svc-Event-ID',
    in: 'header',
    required: true,
    description: "The event's id, the same on every retry: deduplicate on it",
    schema: { type: 'string' },
  },
  WebhookSvcEventType: {
    name: 'X-Svc-Event-Type',
    in: 'header',
    required: true,
    description: "The event type (the body's `event`)",
    schema: { type: 'string' },
  },
  StandardWebhookId: {
    name: 'webhook-id',
    in: 'header',
    required: false,
    description: 'Standard Webhooks: the event id (subscriptions with `signature_formats` including `standard_webhooks`)',
    schema: { type: 'string' },
  },
  StandardWebhookTimestamp: {
    name: 'webhook-timestamp',
    in: 'header',
    required: false,
    description: 'Standard Webhooks: Unix seconds of the attempt',
    schema: { type: 'string', pattern: '^[0-9]+$' },
  },
  StandardWebhookSignature: {
    name: 'webhook-signature',
    in: 'header',
    required: false,
    description: 'Standard Webhooks: `v1,<base64>` signatures, space separated',
    schema: { type: 'string' },
  },
};

function envelope(event: string, data: Json): Json {
  return {
    type: 'object',
    required: ['event', 'id', 'created_at', 'application_id', 'data'],
    properties: {
      event: { type: 'string', const: event },
      id: { type: 'string', description: 'The event id (`X-Svc-Event-ID`)' },
      created_at: { type: 'string', format: 'date-time' },
      application_id: { type: 'string' },
      data,
    },
  };
}

/**
 * Every webhook the dispatcher sends, for the OpenAPI document's `webhooks`: the body envelope
 * of `webhookBody`, whose `data` is the bus event's protobuf message as JSON (the descriptors the
 * intake decodes with), or the shape a consent record's mapping builds (classes it `satisfies`).
 */
export function documentedWebhooks(): DocumentedWebhook[] {
  const hooks: DocumentedWebhook[] = [];
  for (const event of SUBSCRIBABLE_EVENT_TYPES) {
    const schemas: Record<string, Json> = {};
    const branches: Json[] = [];
    const classes: MappedDataShape[] = [];
    for (const source of WEBHOOK_SOURCE_EVENT_TYPES.filter((type) => webhookTypesOf(type).includes(event))) {
      const shape = mappedShape(source);
      if (shape) {
        if (!classes.includes(shape)) classes.push(shape);
        continue;
      }
      const proto = protoMessageSchemas(EVENTS[source].schema as DescMessage, FIELDS_NOT_IN_WEBHOOK_DATA);
      Object.assign(schemas, proto.schemas);
      branches.push({ $ref: `#/components/schemas/${proto.name}` });
    }
    branches.push(...classes.map((shape) => ({ $ref: `#/components/schemas/${shape.name}` })));
    const data = branches.length === 1 ? branches[0]! : { anyOf: branches };
    hooks.push({ event, summary: SUMMARIES[event], body: envelope(event, data), schemas, classes });
  }
  hooks.push({
    event: TEST_EVENT_TYPE,
    summary: SUMMARIES[TEST_EVENT_TYPE],
    body: envelope(TEST_EVENT_TYPE, { $ref: `#/components/schemas/${TestWebhookData.name}` }),
    classes: [TestWebhookData],
  });
  return hooks;
}
