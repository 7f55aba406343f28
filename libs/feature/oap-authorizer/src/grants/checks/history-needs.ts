import type { AuthorityBounds } from '../../authorities/bounds';

/** Which parts of a GrantHistory the cascade reads for an authority. */
export interface HistoryNeeds {
  /** Step 12, `action_bounds.max_actions`. */
  total: boolean;
  /** Step 13, `oap_sequence_bounds.max_per_minute`. */
  lastMinute: boolean;
  /** Step 8, `time_bounds.buckets`. */
  buckets: boolean;
  /** Step 7, `value_bounds.aggregate`. */
  aggregate: boolean;
  /** Step 13, `oap_sequence_bounds.ordering`. */
  grantedActions: boolean;
}

/**
 * The history parts whose cost grows with the authority's grants (or a day of them) that its
 * bounds make the cascade read; the others would cost a scan for nothing. The recent actions (at
 * most 64 rows) are always read. A step that starts reading another part of GrantHistory must add
 * its bound here.
 */
export function historyNeeds(bounds: AuthorityBounds): HistoryNeeds {
  const sequence = bounds.oap_sequence_bounds;
  return {
    total: bounds.action_bounds?.max_actions !== undefined,
    lastMinute: sequence?.max_per_minute !== undefined,
    buckets: (bounds.time_bounds?.buckets?.length ?? 0) > 0,
    aggregate: bounds.value_bounds?.aggregate !== undefined,
    grantedActions: (sequence?.ordering?.length ?? 0) > 0,
  };
}
