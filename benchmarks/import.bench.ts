/**
 * Consent import benchmark: 100 000 rows (BENCH_IMPORT_ROWS) sent over HTTP in ONE request to
 * `POST /api/v1/consent_records/imports` (the route's own 64 MiB body limit; the body is streamed
 * from a generator with its Content-Length, so the client never holds it), stored in chunks, then
 * written by the background worker in batches (one transaction per batch: group commit) with the
 * later-record rule, the idempotency check and the outbox events of every row. Prints the request
 * size and time, rows/s, peak RSS of the process and progress, then the Record API write path
 * (group commit) under concurrent callers, beside the primitive measured in the same run: raw
 * single-row INSERT rate (one commit per row).
 *
 *   npm run bench:import        (env: BENCH_IMPORT_ROWS=100000)
 *
 * Uses a database and bus prefix of its own on the local Postgres and NATS, dropped at the end.
 */
import { performance } from 'node:perf_hooks';
import { Readable } from 'node:stream';
import { SystemClock } from '@svc/config';
import { CreateApplication, CreateApplicationCommand, decisionGatewayFeature } from '@svc/decision-gateway';
import { startProcess } from '@svc/server';
import { createTestDatabase, deleteTestStreams, http, testEnv, uniqueBusPrefix } from '@svc/testing';
import { DataSource } from 'typeorm';
import { Pool } from 'undici';
import { IMPORT_BATCH_ROWS, ImportsRepository, RecordConsent, consentRecordsFeature, type RecordConsentBody } from '@svc/consent-records';
import { CpuWindow } from './support/cpu';
import { fmt, rawInsertRate } from './support/report';
import { emitRows } from './support/results';

const ROWS = Number(process.env.BENCH_IMPORT_ROWS ?? 100_000);
const API_SECONDS = Number(process.env.BENCH_API_SECONDS ?? 5);
const API_CONCURRENCY = Number(process.env.BENCH_API_CONCURRENCY ?? 200);
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

async function main(): Promise<void> {
  const database = await createTestDatabase('bench-import');
  const prefix = uniqueBusPrefix();
  const running = await startProcess({
    features: [decisionGatewayFeature, consentRecordsFeature],
    env: testEnv({
      REGION: 'us',
      DATABASE_URL: database.url,
      BUS_PREFIX: prefix,
      PUBLIC_BASE_URL: 'https://us.example.test',
      LOG_LEVEL: 'warn',
    }),
    clock: new SystemClock(),
  });
  let peakRss = process.memoryUsage().rss;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 50);
  try {
    const created = await running.app
      .get(CreateApplication)
      .execute(CreateApplicationCommand.create({ name: 'bench', environment: 'development' }));
    const auth = { authorization: `Bearer ${created.apiToken}` };
    const flow = await http<{ id: string }>('POST', `${running.url}/api/v1/flows`, {
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
    await http('POST', `${running.url}/api/v1/flows/${flow.body.id}/activate`, { headers: auth });
    const dataSource = running.app.get(DataSource);
    const raw = await rawInsertRate(dataSource);
    const rssBefore = process.memoryUsage().rss;

    const principal = {
      kind: 'api_token' as const,
      applicationId: created.application.id,
      credentialId: 'bench',
      scopes: [],
      environment: 'development' as const,
      region: 'us',
      mode: 'conductor',
    };
    let bytes = 0;
    for (const piece of importBody(flow.body.id)) bytes += piece.length;
    const pool = new Pool(running.url, { connections: 1 });
    const window = new CpuWindow(dataSource);
    await window.start();
    const t0 = performance.now();
    const res = await pool.request({
      method: 'POST',
      path: '/api/v1/consent_records/imports',
      headers: { ...auth, 'content-type': 'application/json', 'content-length': String(bytes) },
      body: Readable.from(importBody(flow.body.id)),
    });
    const accepted = (await res.body.json()) as { id?: string; message?: string };
    await pool.close();
    if (res.statusCode !== 202 || !accepted.id) throw new Error(`import request: ${res.statusCode} ${JSON.stringify(accepted)}`);
    const job = { id: accepted.id };
    const stored = performance.now();
    const imports = running.app.get(ImportsRepository);
    let lastPrint = 0;
    for (;;) {
      const state = (await imports.find(principal.applicationId, job.id))!;
      if (performance.now() - lastPrint > 5_000) {
        console.log(
          `  progress: ${fmt(state.processed)}/${fmt(state.total)} processed (${state.status}) after ${((performance.now() - t0) / 1000).toFixed(1)} s`,
        );
        lastPrint = performance.now();
      }
      if (state.status === 'completed') {
        const end = performance.now();
        const seconds = (end - stored) / 1000;
        console.log(
          `import of ${fmt(ROWS)} rows (${fmt(state.created)} created, ${fmt(state.duplicates)} duplicates, ${fmt(state.failed)} failed)`,
        );
        console.log(
          `  HTTP request (${(bytes / 1_048_576).toFixed(1)} MiB, one request) → 202, rows stored: ${((stored - t0) / 1000).toFixed(1)} s`,
        );
        console.log(`  worker, batches of ${IMPORT_BATCH_ROWS} rows:       ${seconds.toFixed(1)} s → ${fmt(ROWS / seconds)} rows/s`);
        console.log(`  end to end:                         ${fmt(ROWS / ((end - t0) / 1000))} rows/s`);
        console.log(`  peak RSS: ${mib(peakRss)} MiB (before import ${mib(rssBefore)} MiB)`);
        const cpu = await window.stop();
        const perOp = { server: cpu.serverMs / ROWS, postgres: cpu.postgresMs === undefined ? undefined : cpu.postgresMs / ROWS };
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
            work: `import of ${fmt(ROWS)} rows, peak RSS of the process`,
            figure: peakRss / 1_048_576,
            unit: 'MiB',
            detail: `before import ${mib(rssBefore)} MiB`,
            budget: '< 300 MB',
            met: peakRss < 300 * 1_000_000,
          },
        );
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    // Record API write path (group commit through RecordBatcher), concurrent callers, same run.
    const recordConsent = running.app.get(RecordConsent);
    let written = 0;
    const apiStart = performance.now();
    await Promise.all(
      Array.from({ length: API_CONCURRENCY }, async (_, worker) => {
        for (let i = 0; performance.now() - apiStart < API_SECONDS * 1000; i += 1) {
          const body = {
            flow_id: flow.body.id,
            subject: { external_id: `api-${worker}-${i}` },
            decisions: { newsletter: { decision: 'granted' }, offers: { decision: 'declined' } },
            captured_at: new Date().toISOString(),
            idempotency_key: `api-${worker}-${i}`,
          } as unknown as RecordConsentBody;
          await recordConsent.execute(principal, body);
          written += 1;
        }
      }),
    );
    console.log(
      `Record API use case, group commit, ${API_CONCURRENCY} concurrent callers: ${fmt(written / ((performance.now() - apiStart) / 1000))} records/s`,
    );
    console.log(`primitive, same run: raw single-row INSERT (one commit per row, one connection): ${fmt(raw)} rows/s`);
  } finally {
    clearInterval(sampler);
    await running.close();
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
