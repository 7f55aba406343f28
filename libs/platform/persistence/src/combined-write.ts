/**
 * Writes of one owner (a repository, the outbox, a store) as a part of a larger statement: named
 * data-modifying CTEs, SELECTs that must run with them (a NOTIFY), and the parameters of both,
 * numbered from the `firstParam` the part was built with.
 */
export interface WritePart {
  /** `name AS (INSERT … | UPDATE … | DELETE …)`, in order; a later one may read an earlier one's RETURNING by name. */
  readonly ctes: ReadonlyArray<{ readonly name: string; readonly sql: string }>;
  /** Row-returning SELECTs run once with the writes (each must return one row, e.g. `SELECT pg_notify(…)`). */
  readonly selects?: readonly string[];
  readonly params: readonly unknown[];
}

/** A statement and its parameters. */
export interface Statement {
  readonly sql: string;
  readonly params: unknown[];
}

/**
 * The writes of several owners as ONE statement, one round trip in the caller's transaction:
 * `WITH a AS (…), b AS (…) SELECT 1 FROM (select₀) s0, …`. Each part is built with the number of
 * its first parameter (the parameters of the parts before it come first). Undefined when no part
 * writes anything. CTE names must be unique across the parts. Postgres runs every data-modifying
 * CTE exactly once, against the statement's snapshot, so two parts must not modify the same row.
 */
export function combinedWrite(parts: ReadonlyArray<(firstParam: number) => WritePart | undefined>): Statement | undefined {
  const params: unknown[] = [];
  const ctes: string[] = [];
  const names = new Set<string>();
  const selects: string[] = [];
  for (const build of parts) {
    const part = build(params.length + 1);
    if (!part) continue;
    params.push(...part.params);
    for (const cte of part.ctes) {
      if (names.has(cte.name)) throw new Error(`combinedWrite: CTE ${cte.name} is named twice`);
      names.add(cte.name);
      ctes.push(`${cte.name} AS (${cte.sql})`);
    }
    selects.push(...(part.selects ?? []));
  }
  if (ctes.length === 0 && selects.length === 0) return undefined;
  const from = selects.length === 0 ? '' : ` FROM ${selects.map((select, index) => `(${select}) AS s${index}`).join(', ')}`;
  return { sql: `${ctes.length === 0 ? '' : `WITH ${ctes.join(', ')} `}SELECT 1${from}`, params };
}
