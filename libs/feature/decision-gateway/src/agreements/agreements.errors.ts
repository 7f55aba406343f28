import { defineErrors } from '@svc/errors';

/** Closed list of reason codes of agreements. */
export const agreementError = defineErrors({
  /** No such agreement for the caller's application. */
  agreement_not_found: 'not_found',
  /** The agreement already reached its outcome (`detail.status`): a vote or a withdrawal comes too late. */
  agreement_decided: 'conflict',
  /** No such amendment of this agreement. */
  amendment_not_found: 'not_found',
  /** The amendment already reached its outcome (`detail.status`): a vote comes too late. */
  amendment_decided: 'conflict',
  /** Only an active agreement can be amended (`detail.status`). */
  agreement_not_active: 'conflict',
  /** Another amendment of the agreement is still open (`detail.amendment_id`). */
  amendment_open: 'conflict',
  /** This party already answered (`detail.party_id`). */
  party_already_answered: 'conflict',
  /** A party names no person homed in its region (`detail.field`). */
  party_not_found: 'unprocessable',
  /** The same person appears twice among the parties (`detail.field`). */
  party_duplicate: 'unprocessable',
  /** A multi-party agreement needs at least two parties (`detail.field: parties`). */
  parties_too_few: 'unprocessable',
  /** quorum.threshold is missing with `threshold`, given with another type, or above the parties (`detail.field`). */
  quorum_invalid: 'unprocessable',
  /** document.content_base64 is not base64, empty, or larger than 512 KiB (`detail.field`). */
  document_invalid: 'unprocessable',
  /** The signer has a passkey: a signature needs their assertion over it (`detail.challenge`). */
  passkey_assertion_required: 'unauthenticated',
  /** The passkey assertion does not verify, or is by a credential that is not the signer's. */
  passkey_assertion_invalid: 'unauthenticated',
  /** A signer's home region did not answer; nothing was created (retry). */
  signer_region_unavailable: 'unavailable',
});
