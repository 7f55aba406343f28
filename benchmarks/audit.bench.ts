/**
 * Audit-chain append benchmark: entries per second committed to Postgres through the group-commit
 * appender, sustained under concurrent callers, beside the primitives measured in the same run on
 * the same machine: the raw canonicalisation + SHA-256 chain-hash rate (CPU bound, no I/O) and the
 * single-row INSERT rate on one connection (one commit per row).
 *
 *   npm run bench:audit        (env: BENCH_SECONDS=8, BENCH_CONCURRENCY=2000, AUDIT_APPEND_MAX_BATCH=1000)
 *
 * Uses a database of its own on the local Postgres (127.0.0.1:5432), created and dropped by the run.
 */
import { performance } from 'node:perf_hooks';
import { SystemClock } from '@svc/config';
import { newId, randomBase32 } from '@svc/ids';
import { GENESIS_PREVIOUS_HASH, chainHash } from '@svc/merkle';
import { createDataSource, dropDatabase, ensureDatabase, runMigrations } from '@svc/persistence';
import { TEST_DATABASE_SERVER } from '@svc/testing';
import {
  AuditAppender,
  AuditEntriesRepository,
  CheckpointsRepository,
  VerifyChain,
  auditMigrations,
  canonicalEntry,
  type AuditEntryInput,
} from '@svc/audit-chain';
import { CpuWindow } from './support/cpu';
import { fmt } from './support/report';
import { emitRows } from './support/results';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 2_000);
const MAX_BATCH = Number(process.env.AUDIT_APPEND_MAX_BATCH ?? 1_000);

let counter = 0;
/** A realistic entry: a consent decision summary of ~400 bytes canonical. */
function sampleEntry(): AuditEntryInput {
  counter += 1;
  return {
    type: 'consent.granted',
    applicationId: 'tp_us_benchbenchbenchbench',
    sourceEventId: `bench-${counter}-${randomBase32(6)}`,
    occurredAt: new Date(),
    data: {
      event_id: `evt-${counter}`,
      schema_version: 1,
      encoding: 'json',
      payload: {
        flowId: 'flw_us_abcdefghijklmnopqrst',
        versionId: 'tpcv_us_abcdefghijklmnopqrst',
        purposes: ['analytics', 'marketing'],
        decision: 'granted',
        subjectRef: 'sub_0123456789',
      },
    },
  };
}

/** Canonicalisation + chain hash, sequential, no I/O: the CPU ceiling of one writer. */
function hashRate(): number {
  let previous = GENESIS_PREVIOUS_HASH;
  let n = 0;
  const now = new Date();
  const start = performance.now();
  while (performance.now() - start < 2_000) {
    for (let i = 0; i < 500; i += 1) {
      previous = chainHash(previous, canonicalEntry(sampleEntry(), newId('audit_record'), now));
    }
    n += 500;
  }
  return n / ((performance.now() - start) / 1_000);
}

async function main(): Promise<void> {
  const url = `${TEST_DATABASE_SERVER}/svc_bench_audit_${randomBase32(8)}`;
  await ensureDatabase(url);
  const dataSource = createDataSource({ url, poolSize: 4, applicationName: 'bench-audit' });
  await dataSource.initialize();
  try {
    await runMigrations(dataSource, auditMigrations);

    // Primitive 1: raw canonical JSON + SHA-256 chain links per second.
    const rawHash = hashRate();

    // Primitive 2: single-row INSERT, one commit per row, one connection, same kind of row.
    await dataSource.query('CREATE TABLE public.bench_single (id text PRIMARY KEY, hash text NOT NULL, canonical text NOT NULL)');
    const runner = dataSource.createQueryRunner();
    await runner.connect();
    let singles = 0;
    const singleStart = performance.now();
    while (performance.now() - singleStart < 3_000) {
      const entry = sampleEntry();
      const canonical = canonicalEntry(entry, newId('audit_record'), new Date());
      await runner.query('INSERT INTO public.bench_single (id, hash, canonical) VALUES ($1, $2, $3)', [
        entry.sourceEventId,
        chainHash(GENESIS_PREVIOUS_HASH, canonical),
        canonical,
      ]);
      singles += 1;
    }
    const singleRate = singles / ((performance.now() - singleStart) / 1_000);
    await runner.release();

    // The appender: CONCURRENCY callers each appending one entry at a time, for SECONDS.
    let batches = 0;
    const appender = new AuditAppender(dataSource, {
      region: 'us',
      origin: 'bench.example/audit/us',
      clock: new SystemClock(),
      maxBatch: MAX_BATCH,
      windowMs: 1,
      onCommitted: () => {
        batches += 1;
      },
    });
    await appender.ensureGenesis();
    let appended = 0;
    const window = new CpuWindow(dataSource);
    await window.start();
    const deadline = performance.now() + SECONDS * 1_000;
    const start = performance.now();
    const latencies: number[] = [];
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (performance.now() < deadline) {
          const t0 = performance.now();
          await appender.appendOne(sampleEntry());
          latencies.push(performance.now() - t0);
          appended += 1;
        }
      }),
    );
    const elapsed = (performance.now() - start) / 1_000;
    const appendRate = appended / elapsed;
    const cpu = await window.stop();
    latencies.sort((a, b) => a - b);
    const p = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? NaN;

    const rows = Number(((await dataSource.query('SELECT count(*) AS n FROM audit.entries')) as Array<{ n: string }>)[0]?.n);
    const verifyStart = performance.now();
    const verification = await new VerifyChain(new AuditEntriesRepository(dataSource), new CheckpointsRepository(dataSource), () =>
      Promise.resolve(undefined),
    ).execute();
    const verifyRate = rows / ((performance.now() - verifyStart) / 1_000);

    const lines = [
      `audit append benchmark (${SECONDS} s sustained, ${CONCURRENCY} concurrent callers, batch <= ${MAX_BATCH}, pool 4)`,
      `  raw canonicalise + SHA-256 chain hash : ${fmt(rawHash)} entries/s (CPU only, same run)`,
      `  single-row INSERT, one commit per row : ${fmt(singleRate)} rows/s (one connection, same run)`,
      `  group-commit appends committed        : ${fmt(appendRate)} entries/s  (${fmt(appended)} entries in ${batches} transactions, avg ${fmt(appended / Math.max(1, batches))}/commit; ${appender.stats.fastPathCommits} one-round-trip, ${appender.stats.checkedPathCommits} checked)`,
      `  append latency p50 / p99              : ${p(0.5).toFixed(1)} ms / ${p(0.99).toFixed(1)} ms`,
      `  ratio appends / single-row inserts    : ${(appendRate / singleRate).toFixed(1)}x`,
      `  ratio appends / raw hash rate         : ${((appendRate / rawHash) * 100).toFixed(1)}% of the CPU ceiling`,
      `  chain re-verification                 : ${verification.valid ? 'valid' : `BROKEN at ${String(verification.firstBrokenIndex)}`}, ${fmt(rows)} entries at ${fmt(verifyRate)} entries/s`,
      `  target (architecture brief)           : >= 10,000 appends/s -> ${appendRate >= 10_000 ? 'met' : 'NOT met'}`,
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
    emitRows({
      id: 'audit.append',
      work: `audit appends, group commit, ${fmt(CONCURRENCY)} callers`,
      figure: appendRate,
      unit: '/s',
      detail: `p50 ${p(0.5).toFixed(1)} ms, p99 ${p(0.99).toFixed(1)} ms; avg ${fmt(appended / Math.max(1, batches))}/commit`,
      primitive: { name: 'canonicalise + SHA-256 chain hash', value: rawHash, unit: '/s' },
      ratio: appendRate / rawHash,
      budget: '>= 10,000/s',
      met: appendRate >= 10_000,
      cpu: { server: cpu.serverMs / appended, postgres: cpu.postgresMs === undefined ? undefined : cpu.postgresMs / appended },
      extra: { singleRowInsert: singleRate, chainValid: verification.valid },
    });
  } finally {
    await dataSource.destroy();
    await dropDatabase(url);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
