/**
 * Record API benchmark: `POST /api/v1/consent_records` per second through the region's HTTP router
 * (monolithic region process: residency guard, API-token auth, validation, the flow lookup, the
 * group-committed write — idempotency check, later-record rule, head pointers, outbox events —
 * and the response), with p50/p99 latency, printed beside the raw single-row INSERT rate of this
 * machine measured in the same run (one commit per row, one connection), and the ratio.
 *
 *   npm run bench:records   (env: BENCH_SECONDS=10, BENCH_CONCURRENCY=64, BENCH_POOL=16, BENCH_PEOPLE=5000,
 *                            BENCH_SERVICES=residency-router,decision-gateway,consent-records to leave out the
 *                            event consumers of the other services, as the consent-records process of a
 *                            distributed region)
 *
 * Bodies cycle through BENCH_PEOPLE people, so most writes are later records for a known person
 * (head lookup and, every third record, a purpose withdrawn by the later-record rule). Uses a
 * database and bus prefix of its own, created and dropped by the run.
 */
import { performance } from 'node:perf_hooks';
import { CreateApplication, CreateApplicationCommand } from '@svc/decision-gateway';
import { ALL_FEATURES } from '@svc/region-stack';
import { startProcess } from '@svc/server';
import { createTestDatabase, deleteTestStreams, freePort, testEnv, testKeyEncryptionKey, uniqueBusPrefix } from '@svc/testing';
import { DataSource } from 'typeorm';
import { Pool } from 'undici';
import { runClosedLoop, statusLine } from './support/closed-loop';
import { fmt, rawInsertRate } from './support/report';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 64);
const POOL = process.env.BENCH_POOL ?? '16';
const PEOPLE = Number(process.env.BENCH_PEOPLE ?? 5_000);
/** Services of the region to run (comma separated feature names); default all, as a monolithic region. */
const SERVICES = process.env.BENCH_SERVICES?.split(',');

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
  const pool = new Pool(base, { connections: CONCURRENCY, pipelining: 1 });
  try {
    const created = await region.app.get(CreateApplication).execute(CreateApplicationCommand.create({ name: 'bench', environment: 'development' }));
    const auth = { authorization: `Bearer ${created.apiToken}` };
    const headers = { ...auth, 'content-type': 'application/json' };
    const post = async (path: string, body?: unknown) => {
      const res = await pool.request({ method: 'POST', path, headers: body === undefined ? auth : headers, body: body === undefined ? undefined : JSON.stringify(body) });
      return { status: res.statusCode, body: (await res.body.json()) as Record<string, unknown> };
    };
    const flow = await post('/api/v1/flows', {
      name: 'Bench',
      locale: 'en',
      presentation: { title: 'Bench' },
      purposes: [{ key: 'newsletter', label: 'Newsletter' }, { key: 'offers', label: 'Offers' }],
      consent_duration: 'P1Y',
    });
    const flowId = flow.body.id as string;
    const activated = await post(`/api/v1/flows/${flowId}/activate`);
    if (activated.status !== 200) throw new Error(`flow setup failed: ${activated.status} ${JSON.stringify(activated.body)}`);

    const raw = await rawInsertRate(region.app.get(DataSource));
    let next = 0;
    const capturedAt = new Date(Date.now() - 60_000).toISOString();
    const fire = async (): Promise<{ status: number; ms: number }> => {
      const i = next++;
      const body = JSON.stringify({
        flow_id: flowId,
        subject: { email: `person${i % PEOPLE}@example.com`, external_id: `p${i % PEOPLE}` },
        decisions: { newsletter: { decision: i % 3 === 0 ? 'declined' : 'granted' }, offers: { decision: 'granted' } },
        captured_at: capturedAt,
        idempotency_key: `bench-${i}`,
      });
      const started = performance.now();
      const res = await pool.request({ method: 'POST', path: '/api/v1/consent_records', headers, body });
      await res.body.dump();
      return { status: res.statusCode, ms: performance.now() - started };
    };
    // Warm-up: JIT, connection pools, the first record of every person.
    await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
      while (next < PEOPLE) await fire();
    }));
    const { rate, percentile: pct, statuses } = await runClosedLoop({ concurrency: CONCURRENCY, seconds: SECONDS, successStatus: 201, fire });
    console.log(`records bench: ${SECONDS}s, concurrency ${CONCURRENCY}, ${fmt(PEOPLE)} people (later records), DB pool ${POOL}, services: ${SERVICES?.join(', ') ?? 'all (monolithic region)'}`);
    console.log(`  statuses: ${statusLine(statuses)}`);
    console.log(`  record writes/s (201):         ${fmt(rate)}   (p50 ${pct(50).toFixed(1)} ms, p99 ${pct(99).toFixed(1)} ms)`);
    console.log(`  raw single-row INSERT/s:       ${fmt(raw)}   (one commit per row, one connection, same run)`);
    console.log(`  ratio records/raw inserts:     ${(rate / raw).toFixed(2)}`);

    console.log(`  target:                        >= 3,000 record writes/s`);
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
