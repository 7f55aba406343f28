/**
 * The eight authority bounds (spec, Authority bounds). A bound that is absent is "not configured":
 * a grant request touching it is denied at its cascade step. `unrestricted: true` is the explicit
 * opt-out that lets such a request through (architecture brief, absent bounds).
 */

/** OAuth-style scopes the agent may exercise. */
export interface ScopeBounds {
  allowed?: string[];
  denied?: string[];
  unrestricted?: boolean;
}

/** Action classes the agent may perform; `prohibited` feeds reserved step 6, `max_actions` step 12. */
export interface ActionBounds {
  allowed?: string[];
  prohibited?: string[];
  /** Most grants ever allowed under the authority (step 12, `max_actions`). */
  max_actions?: number;
  unrestricted?: boolean;
}

/**
 * Per-invocation, per-calendar-month (UTC) and aggregate ceilings as decimal strings, in one
 * ISO 4217 currency.
 */
export interface ValueBounds {
  currency?: string;
  per_action?: string;
  /** Most allowed in total within one UTC calendar month. */
  per_month?: string;
  aggregate?: string;
  unrestricted?: boolean;
}

/** A per-time-bucket count limit. */
export interface TimeBucket {
  period: 'minute' | 'hour' | 'day';
  max: number;
}

/** Validity window inside the authority's own, allowed UTC hours and weekdays, bucket counts. */
export interface TimeBounds {
  not_before?: string;
  not_after?: string;
  /** [start, end) in whole UTC hours, 0–24. */
  hours_utc?: [number, number];
  /** ISO weekdays 1 (Monday) – 7 (Sunday). */
  days?: number[];
  buckets?: TimeBucket[];
  unrestricted?: boolean;
}

/** When to interrupt and ask the principal(s), and the quorum that decides. */
export interface EscalationBounds {
  /** Escalate when the requested amount is above this decimal. */
  amount_over?: string;
  /** Escalate when any of these actions is requested. */
  actions?: string[];
  /** Escalate when any of these scopes is requested. */
  scopes?: string[];
  /** Escalate every request. */
  always?: boolean;
  quorum_type: 'all' | 'majority' | 'threshold';
  /** Principal ids asked to approve; an escalation with none is denied (step 10). */
  approvers: string[];
  /** Approvals needed when quorum_type is threshold. */
  threshold?: number;
  /** How long the approval stays open, seconds. Default 900. */
  approval_ttl_seconds?: number;
}

/** Minimum Verify-surface reputation. */
export interface ReputationBounds {
  min_trust_score?: number;
  min_vouch_count?: number;
  unrestricted?: boolean;
}

/** Step 13 (ordering, rate, repetition) and step 14 (continuation depth). */
export interface SequenceBounds {
  /** Actions that must happen in this order: an action may be granted only after its predecessors. */
  ordering?: string[];
  /** Most grants per rolling minute. */
  max_per_minute?: number;
  /** Most consecutive grants of the same action. */
  max_repetitions?: number;
  /** Most delegation-chain hops a request may carry (step 14). */
  max_continuation_depth?: number;
  unrestricted?: boolean;
}

/** Jurisdictions (ISO 3166-1 alpha-2) the agent may act toward. */
export interface JurisdictionBounds {
  allowed?: string[];
  unrestricted?: boolean;
}

/** The bounds stored on an authority; any subset may be present. */
export interface AuthorityBounds {
  scope_bounds?: ScopeBounds;
  action_bounds?: ActionBounds;
  value_bounds?: ValueBounds;
  time_bounds?: TimeBounds;
  escalation_bounds?: EscalationBounds;
  reputation_bounds?: ReputationBounds;
  oap_sequence_bounds?: SequenceBounds;
  jurisdiction_bounds?: JurisdictionBounds;
}

/** The bound keys, in the spec's order. */
export const BOUND_KEYS = [
  'scope_bounds',
  'action_bounds',
  'value_bounds',
  'time_bounds',
  'escalation_bounds',
  'reputation_bounds',
  'oap_sequence_bounds',
  'jurisdiction_bounds',
] as const satisfies ReadonlyArray<keyof AuthorityBounds>;
