/**
 * One consent decision end to end, sequential: the application's server mints a consent session
 * for a bound person (`POST /api/v1/decisions`), the page walks its four transitions (sign_in,
 * start_checks, review_terms, complete), and the decision becomes a consent record (consent-records
 * consumes `consent.granted` from the bus and writes the record). Latency from the mint to the
 * record's row being visible, p50/p99 over BENCH_DECISIONS decisions one after the other, with the
 * HTTP part (mint + four transitions) apart, through the region's HTTP router (monolithic region).
 *
 *   npm run bench:decision   (env: BENCH_DECISIONS=200)
 *
 * Also prints, per decision over the timed window, the statements the region sends to Postgres,
 * how many of them open a transaction, and the transactions Postgres commits
 * (pg_stat_database.xact_commit, a statement committed by itself included).
 *
 * Uses a database and bus prefix of its own, created and dropped by the run.
 */
import { createHash } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { CreateApplication, CreateApplicationCommand } from '@svc/decision-gateway';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { Pool } from 'undici';
import { startBenchRegion } from './support/bench-region';
import { CpuWindow } from './support/cpu';
import { emitRows } from './support/results';

const DECISIONS = Number(process.env.BENCH_DECISIONS ?? 200);
const P99_BUDGET_MS = 50;

/** Marks the benchmark's own polling for the record, which the counts below leave out. */
const POLL = '/* bench poll */';

/**
 * Counts the statements every pg client of this process (the whole region) sends, and among them
 * the transactions opened explicitly (BEGIN / START TRANSACTION), the benchmark's polling apart
 * (each poll is also one transaction of its own).
 */
function countStatements(): () => { region: number; opened: number; polls: number } {
  const counts = { region: 0, opened: 0, polls: 0 };
  const query = Client.prototype.query as (...args: unknown[]) => unknown;
  Client.prototype.query = function (this: Client, ...args: unknown[]) {
    const first = args[0];
    const text = typeof first === 'string' ? first : (first as { text?: unknown } | undefined)?.text;
    if (typeof text === 'string' && text.startsWith(POLL)) counts.polls += 1;
    else {
      counts.region += 1;
      if (typeof text === 'string' && /^\s*(BEGIN|START TRANSACTION)\b/i.test(text)) counts.opened += 1;
    }
    return query.apply(this, args);
  } as typeof Client.prototype.query;
  return () => ({ ...counts });
}

async function main(): Promise<void> {
  const statements = countStatements();
  const bench = await startBenchRegion('decision', { poolSize: '8' });
  const { base, region } = bench;
  const pool = new Pool(base, { connections: 1, pipelining: 1 });
  const call = async (path: string, headers: Record<string, string>, body?: unknown) => {
    const res = await pool.request({
      method: 'POST',
      path,
      headers: { ...headers, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const text = await res.body.text();
    return { status: res.statusCode, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
  };
  try {
    const dataSource = region.app.get(DataSource);
    const created = await region.app
      .get(CreateApplication)
      .execute(CreateApplicationCommand.create({ name: 'bench', environment: 'development' }));
    const auth = { authorization: `Bearer ${created.apiToken}` };
    const flow = await call('/api/v1/flows', auth, {
      name: 'Bench',
      locale: 'en',
      presentation: { title: 'Bench' },
      purposes: [
        { key: 'newsletter', label: 'Newsletter', mechanism: 'consent' },
        { key: 'research', label: 'Research', mechanism: 'consent' },
      ],
      consent_duration: 'P1Y',
    });
    const flowId = flow.body.id as string;
    if ((await call(`/api/v1/flows/${flowId}/activate`, auth)).status !== 200) throw new Error('flow activation failed');

    const decide = async (i: number): Promise<{ http: number; total: number }> => {
      const t0 = performance.now();
      const minted = await call('/api/v1/decisions', auth, {
        kind: 'consent',
        flow_id: flowId,
        delivery_mode: 'redirect',
        principal_id: `person-${i}`,
      });
      if (minted.status !== 201) throw new Error(`mint: ${minted.status} ${JSON.stringify(minted.body)}`);
      const token = minted.body.session_token as string;
      for (const action of ['sign_in', 'start_checks', 'review_terms', 'complete']) {
        const moved = await call(`/api/v1/decisions/${token}/transitions`, {}, { action });
        if (moved.status !== 200) throw new Error(`${action}: ${moved.status} ${JSON.stringify(moved.body)}`);
      }
      const http = performance.now() - t0;
      const key = `session:${createHash('sha256').update(token, 'utf8').digest('hex')}`;
      for (;;) {
        const rows = (await dataSource.query(
          `${POLL} SELECT 1 FROM consent_records.records WHERE application_id = $1 AND idempotency_key = $2`,
          [created.application.id, key],
        )) as unknown[];
        if (rows.length > 0) break;
        if (performance.now() - t0 > 30_000) throw new Error(`no record for decision ${i} after 30 s`);
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
      return { http, total: performance.now() - t0 };
    };
    for (let i = 0; i < 10; i += 1) await decide(-1 - i); // warm-up
    const window = new CpuWindow(dataSource);
    await window.start();
    const statementsBefore = statements();
    const results: Array<{ http: number; total: number }> = [];
    for (let i = 0; i < DECISIONS; i += 1) results.push(await decide(i));
    const statementsAfter = statements();
    const regionStatements = statementsAfter.region - statementsBefore.region;
    const opened = statementsAfter.opened - statementsBefore.opened;
    const polls = statementsAfter.polls - statementsBefore.polls;
    const cpu = await window.stop();
    const pct = (values: number[], p: number) =>
      [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((values.length * p) / 100))] ?? NaN;
    const totals = results.map((r) => r.total);
    const https = results.map((r) => r.http);
    console.log(`one consent decision end to end (mint, four transitions, record), ${DECISIONS} sequential`);
    console.log(`  mint → record visible: p50 ${pct(totals, 50).toFixed(1)} ms, p99 ${pct(totals, 99).toFixed(1)} ms`);
    console.log(`  HTTP part (mint + four transitions): p50 ${pct(https, 50).toFixed(1)} ms, p99 ${pct(https, 99).toFixed(1)} ms`);
    const perDecision = (n: number) => (n / DECISIONS).toFixed(1);
    console.log(
      `  per decision: ${perDecision(regionStatements)} statements, ${perDecision(opened)} of them BEGIN; ${cpu.counters ? perDecision(cpu.counters.commits - polls) : '?'} transactions committed, single statements included (the benchmark's own polling left out)`,
    );
    console.log(`  target: p99 < 50 ms`);
    emitRows({
      id: 'decision.e2e',
      work: 'one consent decision end to end (mint, 4 transitions, record), sequential',
      figure: pct(totals, 99),
      unit: 'ms',
      detail: `p99; p50 ${pct(totals, 50).toFixed(1)} ms; HTTP part p50 ${pct(https, 50).toFixed(1)} / p99 ${pct(https, 99).toFixed(1)} ms`,
      budget: 'p99 < 50 ms',
      met: pct(totals, 99) < P99_BUDGET_MS,
      cpu: { server: cpu.serverMs / DECISIONS, postgres: cpu.postgresMs === undefined ? undefined : cpu.postgresMs / DECISIONS },
    });
  } finally {
    await pool.close();
    await bench.close();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
