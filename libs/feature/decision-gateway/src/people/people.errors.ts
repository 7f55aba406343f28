import { defineErrors } from '@svc/errors';

/** Closed list of reason codes of people, sign-in, passkeys and person links. */
export const peopleError = defineErrors({
  /** The one-time code is wrong; `detail.attempts_left` says how many tries the code has left. */
  email_code_invalid: 'unauthenticated',
  /** The code's challenge is unknown, used, expired or out of tries: ask for a new code. */
  email_code_expired: 'gone',
  /** Too many codes or failures for this address or this client; retry after `Retry-After` seconds. */
  sign_in_rate_limited: 'rate_limited',
  /** An account with this email already exists (sign up instead of sign in). */
  person_exists: 'conflict',
  /** The home country is not one a person may choose in this deployment. */
  home_country_unsupported: 'unprocessable',
  /** No SMTP server is configured, so no code can be sent. */
  mail_unavailable: 'unavailable',
  /** No signed-in person on this browser. */
  sign_in_required: 'unauthenticated',
  /** The person named is not known in this region. */
  person_not_found: 'not_found',
  /** The WebAuthn ceremony did not verify (wrong challenge, origin, signature or credential). */
  passkey_invalid: 'unauthenticated',
  passkey_not_found: 'not_found',
  person_link_not_found: 'not_found',
  /** The subject reference is already linked to another person by this application. */
  person_link_conflict: 'conflict',
  /** The person signed in is not the person the application bound the decision to. */
  principal_mismatch: 'forbidden',
  /** A browser request from another origin (cross-site request forgery guard). */
  origin_not_allowed: 'forbidden',
  /** No authority proposal has this page token. */
  authority_proposal_not_found: 'not_found',
  /** The authority proposal was already granted or declined. */
  authority_proposal_settled: 'conflict',
});
