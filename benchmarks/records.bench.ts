/**
 * Record API benchmark: `POST /api/v1/consent_records` per second through the region's HTTP router
 * (monolithic region process: residency guard, API-token auth, validation, the flow lookup, the
 * group-committed write — idempotency check, later-record rule, head pointers, outbox events —
 * and the response), with p50/p99 latency and CPU per record split by process, beside two
 * primitives measured in the same run: the same use case called in process by as many concurrent
 * callers (what HTTP costs on top), and the raw single-row INSERT rate of this machine (one commit
 * per row, one connection).
 *
 *   npm run bench:records   (env: BENCH_SECONDS=10, BENCH_CONCURRENCY=16, BENCH_POOL=16, BENCH_PEOPLE=5000,
 *                            BENCH_SERVICES=residency-router,decision-gateway,consent-records to leave out the
 *                            event consumers of the other services, as the consent-records process of a
 *                            distributed region; BENCH_PIN=0 to leave the load generator unpinned)
 *
 * Bodies cycle through BENCH_PEOPLE people, so most writes are later records for a known person
 * (head lookup and, every third record, a purpose withdrawn by the later-record rule); the warm-up
 * writes every person's first record. The load generator is a process of its own (support/load.ts).
 * Uses a database and bus prefix of its own, created and dropped by the run.
 */
import { performance } from 'node:perf_hooks';
import { RecordConsent, type RecordConsentBody } from '@svc/consent-records';
import { CreateApplication, CreateApplicationCommand } from '@svc/decision-gateway';
import { ALL_FEATURES } from '@svc/region-stack';
import { startProcess } from '@svc/server';
import { createTestDatabase, deleteTestStreams, freePort, testEnv, testKeyEncryptionKey, uniqueBusPrefix } from '@svc/testing';
import { DataSource } from 'typeorm';
import { Pool } from 'undici';
import { CpuWindow } from './support/cpu';
import { cpuText, pinningText, runLoad, statusesText } from './support/load';
import { fmt, rawInsertRate } from './support/report';
import { emitRows, ratioText } from './support/results';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const POOL = process.env.BENCH_POOL ?? '16';
const PEOPLE = Number(process.env.BENCH_PEOPLE ?? 5_000);
/** Services of the region to run (comma separated feature names); default all, as a monolithic region. */
const SERVICES = process.env.BENCH_SERVICES?.split(',');
const RATE_BUDGET = 3_000;

async function main(): Promise<void> {
  const database = await createTestDatabase('bench_records');
  const prefix = uniqueBusPrefix();
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const region = await startProcess({
    features: SERVICES ? ALL_FEATURES.filter((f) => SERVICES.includes(f.name)) : ALL_FEATURES,
    env: testEnv({
      REGION: 'us',
      DATABASE_URL: database.url,
      BUS_PREFIX: prefix,
      HTTP_PORT: String(port),
      KEY_ENCRYPTION_KEY: testKeyEncryptionKey(),
      PUBLIC_BASE_URL: base,
      REGION_URLS: `us=${base},eu=http://127.0.0.1:1,ap=http://127.0.0.1:2`,
      DATABASE_POOL_SIZE: POOL,
      SERVICE_NAME: 'bench-records',
      LOG_LEVEL: 'warn',
    }),
  });
  const pool = new Pool(base, { connections: 4, pipelining: 1 });
  try {
    const dataSource = region.app.get(DataSource);
    const created = await region.app
      .get(CreateApplication)
      .execute(CreateApplicationCommand.create({ name: 'bench', environment: 'development' }));
    const auth = { authorization: `Bearer ${created.apiToken}` };
    const headers = { ...auth, 'content-type': 'application/json' };
    const post = async (path: string, body?: unknown) => {
      const res = await pool.request({
        method: 'POST',
        path,
        headers: body === undefined ? auth : headers,
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: res.statusCode, body: (await res.body.json()) as Record<string, unknown> };
    };
    const flow = await post('/api/v1/flows', {
      name: 'Bench',
      locale: 'en',
      presentation: { title: 'Bench' },
      purposes: [
        { key: 'newsletter', label: 'Newsletter' },
        { key: 'offers', label: 'Offers' },
      ],
      consent_duration: 'P1Y',
    });
    const flowId = flow.body.id as string;
    const activated = await post(`/api/v1/flows/${flowId}/activate`);
    if (activated.status !== 200) throw new Error(`flow setup failed: ${activated.status} ${JSON.stringify(activated.body)}`);

    const raw = await rawInsertRate(dataSource);
    const capturedAt = new Date(Date.now() - 60_000).toISOString();
    // `__N__` is the request's number, `__P__` the person (number modulo PEOPLE); every third person declines the newsletter.
    const template = JSON.stringify({
      flow_id: flowId,
      subject: { email: 'person__P__@example.com', external_id: 'p__P__' },
      decisions: { newsletter: { decision: 'granted' }, offers: { decision: 'granted' } },
      captured_at: capturedAt,
      idempotency_key: 'bench-__N__',
    });
    const http = await runLoad(
      {
        base,
        connections: CONCURRENCY,
        seconds: SECONDS,
        warmup: PEOPLE,
        successStatus: 201,
        method: 'POST',
        path: '/api/v1/consent_records',
        headers,
        body: template,
        people: PEOPLE,
      },
      new CpuWindow(dataSource),
    );

    // The same use case in process, as many concurrent callers, later records of the same people.
    const recordConsent = region.app.get(RecordConsent);
    const principal = {
      kind: 'api_token' as const,
      applicationId: created.application.id,
      credentialId: 'bench',
      scopes: [],
      environment: 'development' as const,
      region: 'us',
      mode: 'conductor',
    };
    const window = new CpuWindow(dataSource);
    await window.start();
    let written = 0;
    let n = 0;
    const start = performance.now();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (performance.now() - start < Math.min(SECONDS, 5) * 1_000) {
          const i = n++;
          const body = {
            flow_id: flowId,
            subject: { email: `person${i % PEOPLE}@example.com`, external_id: `p${i % PEOPLE}` },
            decisions: { newsletter: { decision: i % 3 === 0 ? 'declined' : 'granted' }, offers: { decision: 'granted' } },
            captured_at: capturedAt,
            idempotency_key: `inproc-${i}`,
          } as unknown as RecordConsentBody;
          await recordConsent.execute(principal, body);
          written += 1;
        }
      }),
    );
    const inProcess = written / ((performance.now() - start) / 1_000);
    const inProcessCpu = await window.stop();
    const inProcessPerOp = {
      server: inProcessCpu.serverMs / written,
      postgres: inProcessCpu.postgresMs === undefined ? undefined : inProcessCpu.postgresMs / written,
    };

    console.log(
      `records bench: ${SECONDS} s, ${CONCURRENCY} connections, ${fmt(PEOPLE)} people (later records), DB pool ${POOL}, services: ${SERVICES?.join(', ') ?? 'all (monolithic region)'}; ${pinningText()}`,
    );
    console.log(`  statuses: ${statusesText(http.statuses)}`);
    console.log(
      `  record writes/s via HTTP (201):  ${fmt(http.rate)}   (p50 ${http.p50.toFixed(1)} ms, p99 ${http.p99.toFixed(1)} ms); ${cpuText(http.perOp)}`,
    );
    console.log(`  use case in process, ${CONCURRENCY} callers: ${fmt(inProcess)}/s; ${cpuText(inProcessPerOp)}`);
    console.log(`  raw single-row INSERT/s:         ${fmt(raw)}   (one commit per row, one connection, same run)`);
    console.log(
      `  ratio HTTP/in process: ${ratioText(http.rate / inProcess)}; HTTP/raw inserts: ${ratioText(http.rate / raw)}; target >= 3,000 record writes/s`,
    );
    emitRows(
      {
        id: `records.${CONCURRENCY}`,
        work: `record writes via HTTP, ${CONCURRENCY} connections`,
        figure: http.rate,
        unit: '/s',
        detail: `p50 ${http.p50.toFixed(1)} ms, p99 ${http.p99.toFixed(1)} ms`,
        primitive: { name: `the use case in process, ${CONCURRENCY} callers`, value: inProcess, unit: '/s' },
        ratio: http.rate / inProcess,
        budget: '>= 3,000/s',
        met: http.rate >= RATE_BUDGET,
        cpu: http.perOp,
        extra: { statuses: http.statuses, rawInsert: raw, ratioToRawInsert: http.rate / raw },
      },
      {
        id: 'records.in-process',
        work: `record use case in process, ${CONCURRENCY} callers`,
        figure: inProcess,
        unit: '/s',
        primitive: { name: 'raw single-row INSERT, 1 conn.', value: raw, unit: '/s' },
        ratio: inProcess / raw,
        cpu: inProcessPerOp,
      },
    );
  } finally {
    await pool.close();
    await region.close();
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
