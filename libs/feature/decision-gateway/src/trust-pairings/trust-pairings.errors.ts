import { defineErrors } from '@svc/errors';

/** Closed list of reason codes of trust pairings. */
export const trustPairingError = defineErrors({
  /** No such pairing visible to the caller (one between other applications answers like an unknown one). */
  trust_pairing_not_found: 'not_found',
  /** The counterparty is not another application of this region and environment (`detail.field`). */
  trust_pairing_counterparty_invalid: 'unprocessable',
  /** An open (proposed or active) pairing already joins these two applications in this direction (`detail.trust_pairing_id`). */
  trust_pairing_exists: 'conflict',
  /** The move is not open to the caller in the pairing's status (`detail.status`, `detail.role`): only the counterparty answers a proposal, once. */
  trust_pairing_status: 'conflict',
});
