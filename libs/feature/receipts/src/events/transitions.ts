import type { EventChannel } from '../record/receipt-document';

/**
 * A post-decision transition appended to a frozen receipt (spec, Captured consent and receipts).
 * Transitions are stored beside the frozen document and rendered as `event` rows at read time;
 * the frozen document itself is never rewritten. `at` is an ISO 8601 timestamp; `entity_id` is who
 * acted (the principal, the organisation, the platform), defaulting to the record's principal.
 */
/** A delegate who made a withdrawal for the principal: "by D acting under dlg_…" (event row `acted_by`). */
export interface ActedByClaim {
  /** The delegate (`usr_…`). */
  delegate_id: string;
  /** The delegation grant (`dlg_<region>_…`). */
  delegation_grant_id: string;
  delegation_type: 'guardian' | 'caregiver' | 'power_of_attorney' | 'it_admin' | 'peer';
}

export type ReceiptTransition =
  /** Whole withdrawal, or scoped to one purpose with `purpose_id`; `acted_by` when a delegate made it. */
  | { type: 'consent_withdrawn'; at: string; purpose_id?: string; channel?: EventChannel; entity_id?: string; acted_by?: ActedByClaim }
  | { type: 'objection_recorded'; at: string; purpose_id?: string; channel?: EventChannel; entity_id?: string }
  /** An expiry recorded by the owner (e.g. a subject sweep); term-end expiry is derived, not stored. */
  | { type: 'consent_expired'; at: string; channel?: EventChannel }
  | { type: 'authority_suspended' | 'authority_resumed'; at: string; entity_id?: string }
  | { type: 'authority_revoked'; at: string; entity_id?: string; channel?: EventChannel }
  /** An expiry recorded by the owner; expiry at `valid_until` is derived, not stored. */
  | { type: 'authority_expired'; at: string }
  | { type: 'authority_exercised'; at: string; occurrences?: number; entity_id?: string }
  | {
      type: 'approval_requested' | 'approval_granted' | 'approval_denied' | 'approval_countered';
      at: string;
      approval_id: string;
      entity_id?: string;
    }
  | TransferTransition;

/**
 * A crossing of the record's data recorded in the region's transfer register (before it
 * happened): not an event row, it adds the country and its lawful basis to
 * `pii_processing.processing_locations` (which exists only when such a recorded basis exists).
 */
export interface TransferTransition {
  type: 'transfer_recorded';
  at: string;
  /** ISO 3166-1 alpha-2 destination. */
  country: string;
  /** The register's lawful basis, e.g. `standard_contractual_clauses`. */
  transfer_basis: string;
  /** The register entry (`xfr_…`). */
  transfer_register_id: string;
}

export type ReceiptTransitionType = ReceiptTransition['type'];

/** Transition types per record type: anything else is refused when appended. */
export const TRANSITIONS_BY_RECORD_TYPE = {
  consent_record: ['consent_withdrawn', 'objection_recorded', 'consent_expired', 'transfer_recorded'],
  notice_record: ['objection_recorded', 'transfer_recorded'],
  authorization_record: [
    'authority_suspended',
    'authority_resumed',
    'authority_revoked',
    'authority_expired',
    'authority_exercised',
    'approval_requested',
    'approval_granted',
    'approval_denied',
    'approval_countered',
    'transfer_recorded',
  ],
} as const satisfies Record<string, readonly ReceiptTransitionType[]>;
