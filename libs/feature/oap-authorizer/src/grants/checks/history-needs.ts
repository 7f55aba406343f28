import type { AuthorityBounds } from '../../authorities/bounds';

/** Which time windows of a GrantHistory the cascade reads for an authority. */
export interface HistoryNeeds {
  /** Step 13, `oap_sequence_bounds.max_per_minute`. */
  lastMinute: boolean;
  /** Step 8, `time_bounds.buckets`. */
  buckets: boolean;
  /** Step 7, `value_bounds.per_month`. */
  month: boolean;
}

/**
 * The windows (grants of the last minute, of the current minute, hour and day, amounts of the current month) that the
 * authority's bounds make the cascade read; the others would cost an index range scan for nothing.
 * The running totals (count, amounts, granted actions) come with the authority's lock and the
 * recent actions (at most 64 rows) are always read. A step that starts reading another window of
 * GrantHistory must add its bound here.
 */
export function historyNeeds(bounds: AuthorityBounds): HistoryNeeds {
  return {
    lastMinute: bounds.oap_sequence_bounds?.max_per_minute !== undefined,
    buckets: (bounds.time_bounds?.buckets?.length ?? 0) > 0,
    month: bounds.value_bounds?.per_month !== undefined,
  };
}

/**
 * The start of the UTC calendar month holding `now`: the window of `value_bounds.per_month`
 * (a grant at exactly this instant counts to the new month).
 */
export function utcMonthStart(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
}
