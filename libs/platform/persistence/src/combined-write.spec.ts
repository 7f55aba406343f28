import { combinedWrite, type WritePart } from './combined-write';

/** Writes of several owners as one statement (a hot write path commits its rows in one round trip). */
describe('combinedWrite', () => {
  const part =
    (name: string, values: unknown[], select?: string) =>
    (firstParam: number): WritePart => ({
      ctes: [{ name, sql: `INSERT INTO t (v) SELECT * FROM unnest(${values.map((_, i) => `$${firstParam + i}`).join(', ')})` }],
      selects: select === undefined ? undefined : [`SELECT ${select}($${firstParam + values.length}::text)`],
      params: select === undefined ? values : [...values, 'channel'],
    });

  it('numbers each part from the parameters before it and runs its selects with the writes', () => {
    expect(combinedWrite([part('a', [1, 2]), () => undefined, part('b', [3], 'pg_notify')])).toEqual({
      sql: 'WITH a AS (INSERT INTO t (v) SELECT * FROM unnest($1, $2)), b AS (INSERT INTO t (v) SELECT * FROM unnest($3)) SELECT 1 FROM (SELECT pg_notify($4::text)) AS s0',
      params: [1, 2, 3, 'channel'],
    });
  });

  it('is no statement at all when no part writes', () => {
    expect(combinedWrite([() => undefined])).toBeUndefined();
    expect(combinedWrite([])).toBeUndefined();
  });

  it('refuses two CTEs of one name (one would silently shadow the other)', () => {
    expect(() => combinedWrite([part('a', [1]), part('a', [2])])).toThrow(/named twice/);
  });
});
