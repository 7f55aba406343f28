/**
 * JSON Schemas (Draft 2020-12) of postMessage protocol v2, frame → host (spec, postMessage
 * protocol v2). Served byte-stable at `/schemas/postmessage/v2/<name>.json`; the `$id` of each is
 * that URL path, so a validator resolves `$ref`s between them without network access.
 */

/** URL path prefix under which the schemas are served. */
export const POSTMESSAGE_SCHEMA_BASE = '/schemas/postmessage/v2';

/** The seven message types (closed enum). */
export const POSTMESSAGE_TYPES = [
  'svc:ready',
  'svc:state',
  'svc:complete',
  'svc:cancel',
  'svc:error',
  'svc:resize',
  'svc:deadline',
] as const;
export type PostMessageType = (typeof POSTMESSAGE_TYPES)[number];

/** Envelope `kind`: signing sessions travel as `approval` (their payload names `decision_kind`). */
export const POSTMESSAGE_KINDS = ['consent', 'approval'] as const;
export type PostMessageKind = (typeof POSTMESSAGE_KINDS)[number];

const DRAFT = 'https://json-schema.org/draft/2020-12/schema';
const ISO_UTC = { type: 'string', format: 'date-time', pattern: 'Z$' } as const;
const UUID_V4 = '^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$';

function schema(name: string, title: string, body: Record<string, unknown>): Record<string, unknown> {
  return { $schema: DRAFT, $id: `${POSTMESSAGE_SCHEMA_BASE}/${name}.json`, title, ...body };
}

function object(properties: Record<string, unknown>, required: string[] = Object.keys(properties)): Record<string, unknown> {
  return { type: 'object', properties, required, additionalProperties: false };
}

const errorPayload = object({
  code: { type: 'string', minLength: 1 },
  message: { type: 'string' },
  fatal: { type: 'boolean' },
  recoverable_via: { enum: ['retry', 'reload', 'none'] },
});

const deadlinePayload = object({
  remaining_seconds: { enum: [30, 15, 5, 0] },
  level: { enum: ['warning', 'expired'] },
  deadline_at: ISO_UTC,
});

/** Every schema by file name (without `.json`). */
export const POSTMESSAGE_SCHEMAS: Readonly<Record<string, Record<string, unknown>>> = {
  envelope: schema('envelope', 'postMessage v2 envelope', {
    ...object({
      type: { enum: [...POSTMESSAGE_TYPES] },
      kind: { enum: [...POSTMESSAGE_KINDS] },
      version: { const: 2 },
      payload: { type: 'object' },
      ts: ISO_UTC,
      message_id: { type: 'string', pattern: UUID_V4 },
    }),
  }),
  ready: schema('ready', 'svc:ready payload', {
    ...object({
      kind: { enum: [...POSTMESSAGE_KINDS] },
      session_token: { type: 'string', pattern: '^(dts_)?[A-Za-z0-9_-]{43}$' },
      deadline_at: ISO_UTC,
      branding: object({ name: { type: ['string', 'null'] }, logo_url: { type: ['string', 'null'] } }),
      mode: { enum: ['embed', 'popup', 'redirect', 'direct'] },
      locale: { type: 'string', minLength: 2 },
    }),
  }),
  resize: schema('resize', 'svc:resize payload', { ...object({ height: { type: 'integer', minimum: 0 } }) }),
  cancel: schema('cancel', 'svc:cancel payload (both directions)', {
    ...object({ reason: { type: 'string', minLength: 1 }, cancelled_by: { enum: ['user', 'host'] } }),
  }),
  'state.consent': schema('state.consent', 'svc:state payload, consent', {
    ...object({
      from: { type: ['string', 'null'] },
      to: { type: 'string' },
      step_index: { type: 'integer', minimum: 0 },
      total_steps: { type: 'integer', minimum: 1 },
    }),
  }),
  'state.approval': schema('state.approval', 'svc:state payload, approval (and signing)', {
    ...object({
      from: { type: ['string', 'null'] },
      to: { type: 'string' },
      kind_payload: object({
        decision_kind: { enum: ['approval', 'signature_request'] },
        trigger_type: { type: ['string', 'null'] },
        allowed_actions: { type: 'array', items: { type: 'string' } },
      }),
    }),
  }),
  'complete.consent': schema('complete.consent', 'svc:complete payload, consent', {
    ...object({ outcome: { enum: ['granted', 'declined'] }, exchange_token: { type: ['string', 'null'] }, completed_at: ISO_UTC }),
  }),
  'complete.approval': schema('complete.approval', 'svc:complete payload, approval (signing: signed → approved, declined → denied)', {
    ...object({ outcome: { enum: ['approved', 'denied'] }, exchange_token: { type: ['string', 'null'] }, completed_at: ISO_UTC }),
  }),
  'error.consent': schema('error.consent', 'svc:error payload, consent', { ...errorPayload }),
  'error.approval': schema('error.approval', 'svc:error payload, approval', { ...errorPayload }),
  'deadline.consent': schema('deadline.consent', 'svc:deadline payload, consent', { ...deadlinePayload }),
  'deadline.approval': schema('deadline.approval', 'svc:deadline payload, approval', { ...deadlinePayload }),
};

/** File name of the payload schema for a message: kind-independent for ready/resize/cancel. */
export function payloadSchemaName(type: PostMessageType, kind: PostMessageKind): string {
  const bare = type.slice('svc:'.length);
  return bare === 'ready' || bare === 'resize' || bare === 'cancel' ? bare : `${bare}.${kind}`;
}
