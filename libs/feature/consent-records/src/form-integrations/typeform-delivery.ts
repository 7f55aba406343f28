import { consentRecordsError } from '../consent-records.errors';

/** A field of the delivered form's definition, as far as the mapping needs it. */
export interface DeliveredField {
  type: string;
  /** `validations.required` when the delivery carries it; Typeform's webhook definition omits validations. */
  required: boolean | null;
  /** Number of choices of a choice field (0 for others). */
  choiceCount: number;
}

/** One answer, keyed by its field's ref: Typeform's `{type, <type>: value, field: {id, type, ref}}`. */
export type DeliveredAnswer = Record<string, unknown> & { type: string };

/** A submitted form response, normalised from the platform's webhook body. */
export interface FormDelivery {
  eventType: string;
  formId: string;
  /** The platform's id of this submission (Typeform `form_response.token`): the idempotency key. */
  token: string;
  submittedAt: Date;
  fields: Map<string, DeliveredField>;
  answers: Map<string, DeliveredAnswer>;
  hidden: Record<string, unknown>;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const isText = (value: unknown, max: number): value is string => typeof value === 'string' && value.length > 0 && value.length <= max;

function invalid(message: string, field: string): never {
  throw consentRecordsError('form_payload_invalid', message, { field });
}

/** The response token of a body, when it has one (to key a refusal of an otherwise unusable delivery). */
export function responseTokenOf(body: unknown): string | undefined {
  if (!isObject(body) || !isObject(body.form_response)) return undefined;
  return isText(body.form_response.token, 200) ? body.form_response.token : undefined;
}

/**
 * Reads a Typeform webhook body (`event_type`, `form_response {form_id, token, submitted_at,
 * definition {fields[]}, answers[], hidden}`). Only the parts the mapping needs are checked; a
 * body without them is a 400 `form_payload_invalid` naming the field.
 */
export function parseTypeformDelivery(body: unknown): FormDelivery {
  if (!isObject(body)) invalid('The delivery is not a JSON object', 'body');
  if (!isText(body.event_type, 64)) invalid('event_type is missing', 'event_type');
  const response = body.form_response;
  if (!isObject(response)) invalid('form_response is missing', 'form_response');
  if (!isText(response.form_id, 100)) invalid('form_response.form_id is missing', 'form_response.form_id');
  if (!isText(response.token, 200)) invalid('form_response.token is missing', 'form_response.token');
  const submittedAt = isText(response.submitted_at, 64) ? new Date(response.submitted_at) : undefined;
  if (!submittedAt || Number.isNaN(submittedAt.getTime()))
    invalid('form_response.submitted_at is not a timestamp', 'form_response.submitted_at');
  const definition = response.definition;
  if (!isObject(definition) || !Array.isArray(definition.fields))
    invalid('form_response.definition.fields is missing', 'form_response.definition.fields');

  const fields = new Map<string, DeliveredField>();
  definition.fields.forEach((raw: unknown, i) => {
    if (!isObject(raw) || !isText(raw.ref, 255) || !isText(raw.type, 64))
      invalid(`definition field ${i} lacks ref or type`, `form_response.definition.fields[${i}]`);
    const validations = isObject(raw.validations) ? raw.validations : undefined;
    fields.set(raw.ref, {
      type: raw.type,
      required: typeof validations?.required === 'boolean' ? validations.required : null,
      choiceCount: Array.isArray(raw.choices) ? raw.choices.length : 0,
    });
  });

  // A response without answers (every question skipped) carries `answers: null`.
  const rawAnswers = response.answers ?? [];
  if (!Array.isArray(rawAnswers)) invalid('form_response.answers is not an array', 'form_response.answers');
  const answers = new Map<string, DeliveredAnswer>();
  rawAnswers.forEach((raw: unknown, i) => {
    if (!isObject(raw) || !isText(raw.type, 64) || !isObject(raw.field) || !isText(raw.field.ref, 255))
      invalid(`answer ${i} lacks type or field.ref`, `form_response.answers[${i}]`);
    answers.set(raw.field.ref, raw as DeliveredAnswer);
  });

  return {
    eventType: body.event_type,
    formId: response.form_id,
    token: response.token,
    submittedAt,
    fields,
    answers,
    hidden: isObject(response.hidden) ? response.hidden : {},
  };
}
