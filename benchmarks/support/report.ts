import type { DataSource } from 'typeorm';

/** `12,345`: a rate as the reports print it. */
export const fmt = (n: number): string => Math.round(n).toLocaleString('en-US');

/** Single-row INSERT + commit on one connection for 3 s: the floor every per-row write path pays. */
export async function rawInsertRate(dataSource: DataSource): Promise<number> {
  await dataSource.query('CREATE TABLE IF NOT EXISTS public.bench_raw (id bigserial PRIMARY KEY, payload jsonb NOT NULL)');
  let n = 0;
  const start = performance.now();
  while (performance.now() - start < 3_000) {
    await dataSource.query('INSERT INTO public.bench_raw (payload) VALUES ($1)', [
      JSON.stringify({ n, subject: 'p', decision: 'granted' }),
    ]);
    n += 1;
  }
  return n / ((performance.now() - start) / 1_000);
}
