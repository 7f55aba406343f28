import table from './adequacy-table.json';

/** The destination's standing under the adequacy table. */
export type AdequacyVerdict = 'eea' | 'adequate' | 'partial' | 'not_adequate';
export const ADEQUACY_VERDICTS: readonly AdequacyVerdict[] = ['eea', 'adequate', 'partial', 'not_adequate'];

/** The maintained adequacy table (`adequacy-table.json`): its version, source and per-country verdicts. */
export const ADEQUACY_TABLE: {
  readonly version: string;
  readonly regime: string;
  readonly source: string;
  readonly eea: readonly string[];
  readonly adequate: Readonly<Record<string, string>>;
  readonly partial: Readonly<Record<string, string>>;
} = table;

/** The verdict for a destination country and the decision behind it (null for EEA and not adequate). */
export function adequacyOf(country: string): { verdict: AdequacyVerdict; decision: string | null } {
  if (ADEQUACY_TABLE.eea.includes(country)) return { verdict: 'eea', decision: null };
  const adequate = ADEQUACY_TABLE.adequate[country];
  if (adequate) return { verdict: 'adequate', decision: adequate };
  const partial = ADEQUACY_TABLE.partial[country];
  if (partial) return { verdict: 'partial', decision: partial };
  return { verdict: 'not_adequate', decision: null };
}
