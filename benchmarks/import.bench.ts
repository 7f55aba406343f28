/**
 * Consent import benchmark: 100 000 rows (BENCH_IMPORT_ROWS) sent over HTTP in ONE request to
 * `POST /api/v1/consent_records/imports` (the route's own 64 MiB body limit; the body is streamed
 * from a generator with its Content-Length, so the client never holds it), stored in chunks, then
 * written by the background worker in batches (one transaction per batch: group commit) with the
 * later-record rule, the idempotency check and the outbox events of every row. The server is a
 * process of its own, run as a service runs (support/import-server.ts), so its peak RSS is the
 * service's. Prints the request size and time, rows/s, the server's peak RSS and progress, beside
 * the primitive measured in the same run: raw single-row INSERT rate (one commit per row). The
 * Record API's use case in process is measured by `npm run bench:records`.
 *
 *   npm run bench:import        (env: BENCH_IMPORT_ROWS=100000)
 *
 * Uses a database and bus prefix of its own on the local Postgres and NATS, dropped at the end.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Readable } from 'node:stream';
import { IMPORT_BATCH_ROWS } from '@svc/consent-records';
import { createDataSource } from '@svc/persistence';
import { createTestDatabase, deleteTestStreams, http, uniqueBusPrefix } from '@svc/testing';
import { Pool } from 'undici';
import { nextMessage } from './support/child-messages';
import { CpuWindow } from './support/cpu';
import { cpuText } from './support/load';
import type { ImportServerMessage } from './support/import-server';
import { fmt, rawInsertRate } from './support/report';
import { emitRows } from './support/results';

const ROWS = Number(process.env.BENCH_IMPORT_ROWS ?? 100_000);

/** What the import status answers (`GET /api/v1/consent_records/imports/{id}`), the fields read here. */
interface ImportState {
  status: string;
  counts: { total: number; processed: number; created: number; duplicates: number; failed: number };
}
const mib = (n: number) => (n / 1_048_576).toFixed(0);

const row = (i: number) => ({
  subject: { email: `person${i}@example.com`, external_id: `p${i}` },
  decisions: {
    newsletter: { decision: i % 3 === 0 ? 'declined' : 'granted', default_checked: false, mandatory: false },
    offers: { decision: 'granted', default_checked: false, mandatory: false },
  },
  captured_at: '2026-01-15T10:00:00.000Z',
  idempotency_key: `bench-${i}`,
});

/** The import request body, generated piece by piece (the same bytes on every pass). */
function* importBody(flowId: string): Generator<Buffer> {
  let text = `{"flow_id":${JSON.stringify(flowId)},"records":[`;
  for (let i = 0; i < ROWS; i += 1) {
    text += `${i === 0 ? '' : ','}${JSON.stringify(row(i))}`;
    if (text.length >= 64 * 1024) {
      yield Buffer.from(text);
      text = '';
    }
  }
  yield Buffer.from(`${text}]}`);
}

const RUN_COMPILED = join(__dirname, '..', 'scripts', 'run-compiled.js');

/** The measured server, a process of its own (support/import-server.ts). */
interface ImportServer {
  pid: number;
  url: string;
  apiToken: string;
  /** Its resident memory now and its peak since boot, bytes. */
  rss(): Promise<{ rss: number; peakRss: number }>;
  stop(): Promise<void>;
}

async function startImportServer(databaseUrl: string, busPrefix: string): Promise<ImportServer> {
  // SVC_CPU_PROF_DIR=<folder>: the server writes a CPU profile there when it stops, as in `npm start`.
  const profile = process.env.SVC_CPU_PROF_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.SVC_CPU_PROF_DIR}`] : [];
  const child = spawn(
    process.execPath,
    ['--max-semi-space-size=32', ...profile, RUN_COMPILED, join(__dirname, 'support', 'import-server.ts')],
    {
      env: { ...process.env, BENCH_DATABASE_URL: databaseUrl, BENCH_BUS_PREFIX: busPrefix },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const next = <T extends ImportServerMessage['type']>(type: T) => nextMessage<ImportServerMessage, T>(child, 'import server', type);
  try {
    const ready = await next('ready');
    return {
      pid: child.pid!,
      url: ready.url,
      apiToken: ready.apiToken,
      rss: async () => {
        const answer = next('rss');
        child.send({ type: 'rss' });
        return answer;
      },
      stop: async () => {
        if (child.exitCode === null) child.send({ type: 'stop' });
        await exited;
      },
    };
  } catch (error) {
    child.kill('SIGKILL');
    await exited;
    throw error;
  }
}

async function main(): Promise<void> {
  const database = await createTestDatabase('bench-import');
  const prefix = uniqueBusPrefix();
  let server: ImportServer | undefined;
  const dataSource = createDataSource({ url: database.url, poolSize: 2, applicationName: 'bench-import-probe' });
  try {
    server = await startImportServer(database.url, prefix);
    await dataSource.initialize();
    const auth = { authorization: `Bearer ${server.apiToken}` };
    const flow = await http<{ id: string }>('POST', `${server.url}/api/v1/flows`, {
      headers: auth,
      json: {
        name: 'Bench',
        locale: 'en',
        presentation: { title: 'Bench' },
        purposes: [
          { key: 'newsletter', label: 'N' },
          { key: 'offers', label: 'O' },
        ],
        consent_duration: 'P1Y',
      },
    });
    await http('POST', `${server.url}/api/v1/flows/${flow.body.id}/activate`, { headers: auth });
    const raw = await rawInsertRate(dataSource);
    const before = await server.rss();

    let bytes = 0;
    for (const piece of importBody(flow.body.id)) bytes += piece.length;
    const pool = new Pool(server.url, { connections: 1 });
    const serverPid = server.pid;
    const window = new CpuWindow(dataSource, { servers: () => [{ name: 'import-server', pid: serverPid }] });
    await window.start();
    const t0 = performance.now();
    const res = await pool.request({
      method: 'POST',
      path: '/api/v1/consent_records/imports',
      headers: { ...auth, 'content-type': 'application/json', 'content-length': String(bytes) },
      body: Readable.from(importBody(flow.body.id)),
    });
    const accepted = (await res.body.json()) as { id?: string; message?: string };
    if (res.statusCode !== 202 || !accepted.id) throw new Error(`import request: ${res.statusCode} ${JSON.stringify(accepted)}`);
    const stored = performance.now();
    let lastPrint = 0;
    for (;;) {
      const answer = await pool.request({ method: 'GET', path: `/api/v1/consent_records/imports/${accepted.id}?limit=1`, headers: auth });
      const job = (await answer.body.json()) as ImportState;
      if (answer.statusCode !== 200) throw new Error(`import status: ${answer.statusCode} ${JSON.stringify(job)}`);
      const state = { status: job.status, ...job.counts };
      if (performance.now() - lastPrint > 5_000) {
        console.log(
          `  progress: ${fmt(state.processed)}/${fmt(state.total)} processed (${state.status}) after ${((performance.now() - t0) / 1000).toFixed(1)} s`,
        );
        lastPrint = performance.now();
      }
      if (state.status === 'completed') {
        const end = performance.now();
        const cpu = await window.stop();
        const { peakRss } = await server.rss();
        const seconds = (end - stored) / 1000;
        console.log(
          `import of ${fmt(ROWS)} rows (${fmt(state.created)} created, ${fmt(state.duplicates)} duplicates, ${fmt(state.failed)} failed)`,
        );
        console.log(
          `  HTTP request (${(bytes / 1_048_576).toFixed(1)} MiB, one request) → 202, rows stored: ${((stored - t0) / 1000).toFixed(1)} s`,
        );
        console.log(`  worker, batches of ${IMPORT_BATCH_ROWS} rows:       ${seconds.toFixed(1)} s → ${fmt(ROWS / seconds)} rows/s`);
        console.log(`  end to end:                         ${fmt(ROWS / ((end - t0) / 1000))} rows/s`);
        console.log(`  server process, peak RSS: ${mib(peakRss)} MiB (before the import ${mib(before.rss)} MiB)`);
        const perOp = { server: cpu.serverMs / ROWS, postgres: cpu.postgresMs === undefined ? undefined : cpu.postgresMs / ROWS };
        console.log(`  CPU per row: ${cpuText(perOp)}`);
        console.log(`primitive, same run: raw single-row INSERT (one commit per row, one connection): ${fmt(raw)} rows/s`);
        const total = (end - t0) / 1000;
        emitRows(
          {
            id: 'import.time',
            work: `import of ${fmt(ROWS)} rows, one request, end to end`,
            figure: total,
            unit: 's',
            detail: `${fmt(ROWS / total)} rows/s; request ${((stored - t0) / 1000).toFixed(1)} s, worker ${seconds.toFixed(1)} s`,
            primitive: { name: 'raw single-row INSERT, 1 conn.', value: raw, unit: '/s' },
            ratio: ROWS / total / raw,
            budget: '< 20 s',
            met: total < 20,
            cpu: perOp,
            extra: { created: state.created, duplicates: state.duplicates, failed: state.failed, bytes },
          },
          {
            id: 'import.rss',
            work: `import of ${fmt(ROWS)} rows, peak RSS of the server process`,
            figure: peakRss / 1_048_576,
            unit: 'MiB',
            detail: `before the import ${mib(before.rss)} MiB`,
            budget: '< 300 MB',
            met: peakRss < 300 * 1_000_000,
          },
        );
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    await pool.close();
  } finally {
    await server?.stop();
    if (dataSource.isInitialized) await dataSource.destroy();
    await database.drop();
    await deleteTestStreams(prefix);
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
