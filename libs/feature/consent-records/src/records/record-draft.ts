import { consentRecordsError } from '../consent-records.errors';
import type { FlowVersion } from '../flows/flow';
import { assertDecisionsAcceptable, parseDecisions } from './record-decisions';
import type { CollectionChannel, Subject } from './record';
import type { RecordDraft } from './record-writer';
import type { RecordFields } from './records.dto';

/** How far captured_at may lie after the platform time (clock skew between systems). */
export const CAPTURED_AT_SKEW_MS = 5 * 60_000;

/** Normalises the subject: blank fields are absent; at least one reference is required. */
export function subjectOf(input: { email?: string; external_id?: string }): Subject {
  const subject = { email: input.email ?? null, external_id: input.external_id ?? null };
  if (subject.email === null && subject.external_id === null) {
    throw consentRecordsError('subject_reference_missing', 'subject needs an email or an external_id', { field: 'subject' });
  }
  return subject;
}

/**
 * Turns validated record fields into a draft for `flow` (its active version), refusing by name
 * what cannot be recorded. `now` is platform time (captured_at may not lie in its future).
 */
export function recordDraft(
  fields: RecordFields,
  flow: FlowVersion,
  applicationId: string,
  channel: CollectionChannel,
  now: Date,
): RecordDraft {
  const subject = subjectOf(fields.subject);
  const decisions = parseDecisions(fields.decisions);
  assertDecisionsAcceptable(flow.terms, decisions);
  const capturedAt = new Date(fields.captured_at);
  if (capturedAt.getTime() > now.getTime() + CAPTURED_AT_SKEW_MS) {
    throw consentRecordsError('captured_at_in_future', 'captured_at lies in the future', {
      field: 'captured_at',
      captured_at: fields.captured_at,
    });
  }
  return {
    applicationId,
    flow,
    subject,
    decisions,
    capturedAt,
    noticeDigest: fields.notice_digest ?? null,
    idempotencyKey: fields.idempotency_key ?? null,
    channel,
    sendReceipt: true,
  };
}
