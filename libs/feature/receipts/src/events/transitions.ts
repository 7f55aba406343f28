import type { EventChannel } from '../record/receipt-document';

/**
 * A post-decision transition appended to a frozen receipt (spec, Captured consent and receipts).
 * Transitions are stored beside the frozen document and rendered as `event` rows at read time;
 * the frozen document itself is never rewritten. `at` is an ISO 8601 timestamp; `entity_id` is who
 * acted (the principal, the organisation, the platform), defaulting to the record's principal.
 */
export type ReceiptTransition =
  /** Whole withdrawal, or scoped to one purpose with `purpose_id`. */
  | { type: 'consent_withdrawn'; at: string; purpose_id?: string; channel?: EventChannel; entity_id?: string }
  | { type: 'objection_recorded'; at: string; purpose_id?: string; channel?: EventChannel; entity_id?: string }
  /** An expiry recorded by the owner (e.g. a subject sweep); term-end expiry is derived, not stored. */
  | { type: 'consent_expired'; at: string; channel?: EventChannel }
  | { type: 'authority_suspended' | 'authority_resumed'; at: string; entity_id?: string }
  | { type: 'authority_revoked'; at: string; entity_id?: string; channel?: EventChannel }
  /** An expiry recorded by the owner; expiry at `valid_until` is derived, not stored. */
  | { type: 'authority_expired'; at: string }
  | { type: 'authority_exercised'; at: string; occurrences?: number; entity_id?: string }
  | { type: 'approval_requested' | 'approval_granted' | 'approval_denied' | 'approval_countered'; at: string; approval_id: string; entity_id?: string };

export type ReceiptTransitionType = ReceiptTransition['type'];

/** Transition types per record type: anything else is refused when appended. */
export const TRANSITIONS_BY_RECORD_TYPE = {
  consent_record: ['consent_withdrawn', 'objection_recorded', 'consent_expired'],
  notice_record: ['objection_recorded'],
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
  ],
} as const satisfies Record<string, readonly ReceiptTransitionType[]>;
