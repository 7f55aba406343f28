import { appendFileSync } from 'node:fs';

/** CPU milliseconds spent per operation, split by process. */
export interface CpuPerOp {
  /** The server process (the bench's region process). */
  server?: number;
  /** The Postgres backends serving the run's database. */
  postgres?: number;
  /** The load generator process. */
  loadgen?: number;
}

/** One line of `npm run bench`'s table: a figure beside its primitive measured in the same run. */
export interface BenchRow {
  /** Stable identifier (`grants.64`, `records.16`, …). */
  id: string;
  /** What was measured, as the table names it. */
  work: string;
  /** The figure and its unit (`/s`, `ms`, `s`, `MiB`). */
  figure: number;
  unit: string;
  /** Latencies or other details printed beside the figure (`p50 12 ms, p99 30 ms`). */
  detail?: string;
  /** The primitive measured in the same run. */
  primitive?: { name: string; value: number; unit: string };
  /** figure ÷ primitive (when both are rates). */
  ratio?: number;
  /** The budget, as written in ARCHITECTURE's performance section. */
  budget?: string;
  /** Whether the budget is met (undefined: no budget). */
  met?: boolean;
  cpu?: CpuPerOp;
  /** Anything else worth keeping in the JSON result. */
  extra?: Record<string, unknown>;
}

/**
 * Hands rows to `npm run bench` (it sets BENCH_RESULT_FILE: one JSON row per line); a bench run on
 * its own just prints its report.
 */
export function emitRows(...rows: BenchRow[]): void {
  const file = process.env.BENCH_RESULT_FILE;
  if (!file) return;
  appendFileSync(file, rows.map((row) => `${JSON.stringify(row)}\n`).join(''));
}

/** `1.23` / `0.045`: a ratio with two significant decimals. */
export function ratioText(ratio: number | undefined): string {
  if (ratio === undefined || !Number.isFinite(ratio)) return '';
  return ratio >= 10 ? ratio.toFixed(0) : ratio >= 0.1 ? ratio.toFixed(2) : ratio.toFixed(3);
}
