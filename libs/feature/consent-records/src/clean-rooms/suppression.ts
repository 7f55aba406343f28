/** Smallest minimum cohort a room may set, and the default. */
export const MIN_COHORT_FLOOR = 10;
export const DEFAULT_MIN_COHORT = 50;

/** The three counts a comparison computes; only these leave the database. */
export interface AudienceCounts {
  readonly initiator_audience: number;
  readonly partner_audience: number;
  readonly overlap: number;
}

export type SuppressedCounts = { readonly [K in keyof AudienceCounts]: number | null };

/**
 * Small-cell suppression of a comparison. A count below the minimum cohort is suppressed (null).
 * The overlap is also suppressed when either audience outside it is a small, non-empty remainder:
 * a party knows its own audience, so "all but 3 of mine are in yours" would single those 3 out.
 */
export function suppress(counts: AudienceCounts, minimum: number): { counts: SuppressedCounts; suppressed: Array<keyof AudienceCounts> } {
  const suppressed: Array<keyof AudienceCounts> = [];
  const small = (n: number): boolean => n < minimum;
  const remainderSmall = (audience: number): boolean => audience - counts.overlap > 0 && small(audience - counts.overlap);
  if (small(counts.initiator_audience)) suppressed.push('initiator_audience');
  if (small(counts.partner_audience)) suppressed.push('partner_audience');
  if (small(counts.overlap) || remainderSmall(counts.initiator_audience) || remainderSmall(counts.partner_audience))
    suppressed.push('overlap');
  return {
    counts: {
      initiator_audience: suppressed.includes('initiator_audience') ? null : counts.initiator_audience,
      partner_audience: suppressed.includes('partner_audience') ? null : counts.partner_audience,
      overlap: suppressed.includes('overlap') ? null : counts.overlap,
    },
    suppressed,
  };
}
