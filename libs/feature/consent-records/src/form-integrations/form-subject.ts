import { consentRecordsError } from '../consent-records.errors';
import type { Subject } from '../records/record';
import type { SubjectMapping } from './form-integration';
import type { FormDelivery } from './typeform-delivery';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** The answer's value as text, for the answer types that are text (email, short text, number, phone). */
function textOf(answer: Record<string, unknown> | undefined): string | undefined {
  if (!answer) return undefined;
  const value = answer[answer.type as string];
  if (typeof value === 'string') return value.trim() || undefined;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return undefined;
}

/**
 * The person the delivery is about: the email answer, and the external id from an answer or, when
 * no field has that ref, from the hidden field of that name (how a form passes a known user id).
 * 422 subject_reference_missing when neither is there; a malformed email is a 400 naming its field.
 */
export function subjectFromDelivery(mapping: SubjectMapping, delivery: FormDelivery): Subject {
  const email = textOf(delivery.answers.get(mapping.email_field_ref)) ?? null;
  if (email !== null && (email.length > 320 || !EMAIL.test(email))) {
    throw consentRecordsError('form_payload_invalid', `The answer to field "${mapping.email_field_ref}" is not an email address`, {
      field: 'form_response.answers',
      field_ref: mapping.email_field_ref,
    });
  }
  let externalId: string | null = null;
  if (mapping.external_id_field_ref !== null) {
    const hidden = delivery.hidden[mapping.external_id_field_ref];
    externalId =
      textOf(delivery.answers.get(mapping.external_id_field_ref)) ?? (typeof hidden === 'string' && hidden.trim() ? hidden.trim() : null);
    if (externalId !== null && externalId.length > 200) {
      throw consentRecordsError(
        'form_payload_invalid',
        `The external id in "${mapping.external_id_field_ref}" is longer than 200 characters`,
        { field: 'form_response', field_ref: mapping.external_id_field_ref },
      );
    }
  }
  if (email === null && externalId === null) {
    throw consentRecordsError('subject_reference_missing', 'The response carries neither the mapped email nor the mapped external id', {
      field_ref: mapping.email_field_ref,
    });
  }
  return { email, external_id: externalId };
}
