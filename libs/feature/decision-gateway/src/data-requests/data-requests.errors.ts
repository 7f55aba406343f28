import { defineErrors } from '@svc/errors';

/** Closed list of reason codes of data subject requests. */
export const dataRequestError = defineErrors({
  /** No such request visible to the caller (another application's or person's answers like an unknown one). */
  data_request_not_found: 'not_found',
  /** The request is completed or rejected (`detail.status`): nothing moves it any more. */
  data_request_final: 'conflict',
  /** The request was already extended once (Art. 12(3) allows one extension). */
  data_request_already_extended: 'conflict',
  /** The deadline has passed (`detail.due_at`): an extension must be told within the first month. */
  data_request_overdue: 'conflict',
  /** `days` must be 1–60 (`detail.max_days`). */
  data_request_extension_invalid: 'unprocessable',
  /** Only a received request is started (`detail.status`). */
  data_request_not_started: 'conflict',
  /** An application raises a request only for a person it linked a subject reference to (`detail.field: person_id`). */
  data_request_person_not_linked: 'unprocessable',
  /** A person raises requests about themself only: `person_id` names someone else, or an application omitted it (`detail.field`). */
  data_request_person_invalid: 'unprocessable',
  /** `purposes` is required for objection and restriction, and refused for the other kinds (`detail.field`). */
  data_request_purposes_invalid: 'unprocessable',
  /** `rectification` (display_name and/or email) is required for rectification, refused otherwise (`detail.field`). */
  data_request_rectification_invalid: 'unprocessable',
  /** The export link is unknown, tampered with, or past its expiry. */
  data_request_export_not_found: 'not_found',
  /** The new email belongs to another person of this region. */
  data_request_email_taken: 'conflict',
});
