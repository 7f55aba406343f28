/**
 * Public cacheable reads: `GET /api/v1/agents/{agent_id}/capabilities` with the document's ETag in
 * If-None-Match, answering 304, through the region's HTTP router (monolithic region process), per
 * second and with p50/p99, beside the primitive measured in the same run at the same concurrency: a
 * bare Fastify route answering 304 to its ETag. The region's JWKS (`/.well-known/jwks.json`) is
 * measured the same way. CPU per answer is split by process (server, Postgres backends, load
 * generator): a cached answer should spend nothing in Postgres. The documents are answered from
 * memory before Nest's pipeline (`MemoryAnswers`); each line says how many of its answers were (the
 * `http_memory_answers_total` counter over the run). The capability document's plain GET (200 with
 * the body) is measured too.
 *
 *   npm run bench:capability   (env: BENCH_SECONDS=5, BENCH_CONCURRENCY=64, BENCH_PIN=0 to leave the load
 *                               generator unpinned)
 *
 * Each request carries a distinct X-Forwarded-For, so the route's per-IP limit (60/min) does not
 * answer for it. Uses a database and bus prefix of its own, created and dropped by the run.
 */
import { CreateApplication, CreateApplicationCommand } from '@svc/decision-gateway';
import { MEMORY_ANSWERS_METRIC } from '@svc/server';
import { Metrics } from '@svc/telemetry';
import { DataSource } from 'typeorm';
import { Pool } from 'undici';
import { startBenchRegion } from './support/bench-region';
import { CpuWindow } from './support/cpu';
import { cpuText, pinningText, runLoad, statusesText, type MeasuredLoad } from './support/load';
import { BARE_ETAG, startPrimitiveRoutes } from './support/primitive-routes';
import { fmt } from './support/report';
import { emitRows, ratioText, type BenchRow, type CpuPerOp } from './support/results';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 64);
const RATIO_BUDGET = 0.8;

/** Two runs of one load as one: mean rate, the worse latency quantiles, CPU per answer averaged. */
function meanOf(a: MeasuredLoad, b: MeasuredLoad): MeasuredLoad {
  const statuses: Record<string, number> = { ...a.statuses };
  for (const [status, count] of Object.entries(b.statuses)) statuses[status] = (statuses[status] ?? 0) + count;
  const average = (x?: number, y?: number): number | undefined => (x === undefined || y === undefined ? (x ?? y) : (x + y) / 2);
  const perOp: CpuPerOp = {};
  for (const key of ['server', 'postgres', 'loadgen'] as const) {
    const value = average(a.perOp[key], b.perOp[key]);
    if (value !== undefined) perOp[key] = value;
  }
  return { ...a, rate: (a.rate + b.rate) / 2, p50: Math.max(a.p50, b.p50), p99: Math.max(a.p99, b.p99), statuses, perOp };
}

async function main(): Promise<void> {
  const bench = await startBenchRegion('capability', { poolSize: '8' });
  const { base, region } = bench;
  const primitive = await startPrimitiveRoutes();
  const setup = new Pool(base, { connections: 2, pipelining: 1 });
  const call = async (method: 'GET' | 'POST' | 'PATCH', path: string, headers: Record<string, string>, body?: unknown) => {
    const res = await setup.request({
      method,
      path,
      headers: { ...headers, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const text = await res.body.text();
    return {
      status: res.statusCode,
      etag: res.headers.etag as string | undefined,
      body: text ? (JSON.parse(text) as Record<string, unknown>) : {},
    };
  };
  try {
    const dataSource = region.app.get(DataSource);
    const created = await region.app
      .get(CreateApplication)
      .execute(CreateApplicationCommand.create({ name: 'bench', environment: 'development' }));
    const auth = { authorization: `Bearer ${created.apiToken}` };
    const published = await call('PATCH', `/api/v1/applications/${created.application.id}`, auth, { capabilities_published: true });
    if (published.status !== 200) throw new Error(`publishing capabilities: ${published.status} ${JSON.stringify(published.body)}`);
    const agent = await call('POST', '/api/v1/agents', auth, { name: 'bench-agent' });
    const agentId = agent.body.id as string;
    const manifest = await call('POST', `/api/v1/agents/${agentId}/capabilities`, auth, {
      scopes: [{ id: 'payments:write', label: 'Pay' }],
      actions: ['pay'],
    });
    if (manifest.status !== 201 && manifest.status !== 200)
      throw new Error(`capability manifest: ${manifest.status} ${JSON.stringify(manifest.body)}`);
    const path = `/api/v1/agents/${agentId}/capabilities`;
    const first = await call('GET', path, { 'x-forwarded-for': '192.0.2.1' });
    if (first.status !== 200 || !first.etag) throw new Error(`capability document: ${first.status} ${JSON.stringify(first.body)}`);
    const etag = first.etag;
    const jwks = await call('GET', '/.well-known/jwks.json', {});

    // The first load starts right after boot: a warm-up of a few thousand answers lets the JIT and
    // the boot's own background work settle, so the order of the loads does not decide the ratios.
    const spec = { connections: CONCURRENCY, seconds: SECONDS, warmup: CONCURRENCY * 100, method: 'GET' as const, forwardedFor: true };
    const memoryCounter = region.app.get(Metrics).registry.getSingleMetric(MEMORY_ANSWERS_METRIC);
    const answeredFromMemory = async (): Promise<number> =>
      memoryCounter ? (await memoryCounter.get()).values.reduce((sum, value) => sum + value.value, 0) : 0;
    /** The load, with the share of its answers (warm-up included) given from memory. */
    const measured = async (load: () => Promise<MeasuredLoad>): Promise<MeasuredLoad & { fromMemory: number }> => {
      const before = await answeredFromMemory();
      const run = await load();
      const answers = Object.values(run.statuses).reduce((sum, n) => sum + n, 0) + spec.warmup;
      return { ...run, fromMemory: Math.min(1, ((await answeredFromMemory()) - before) / answers) };
    };

    // The bare route is measured before and after the documents and averaged, so a swing of the
    // machine's load during the run weighs on both sides of each ratio alike.
    const bareBefore = await runLoad({
      ...spec,
      base: primitive.url,
      successStatus: 304,
      path: '/cached',
      headers: { 'if-none-match': BARE_ETAG },
    });
    const capability = await measured(() =>
      runLoad({ ...spec, base, successStatus: 304, path, headers: { 'if-none-match': etag } }, new CpuWindow(dataSource)),
    );
    const capabilityFull = await measured(() =>
      runLoad({ ...spec, base, successStatus: 200, path, headers: {} }, new CpuWindow(dataSource)),
    );
    const jwksLoad = await measured(() =>
      jwks.etag
        ? runLoad(
            { ...spec, base, successStatus: 304, path: '/.well-known/jwks.json', headers: { 'if-none-match': jwks.etag } },
            new CpuWindow(dataSource),
          )
        : runLoad({ ...spec, base, successStatus: 200, path: '/.well-known/jwks.json', headers: {} }, new CpuWindow(dataSource)),
    );
    const bareAfter = await runLoad({
      ...spec,
      base: primitive.url,
      successStatus: 304,
      path: '/cached',
      headers: { 'if-none-match': BARE_ETAG },
    });
    const bare = meanOf(bareBefore, bareAfter);
    const bareFull = await runLoad({ ...spec, base: primitive.url, successStatus: 200, path: '/cached', headers: {} });

    console.log(`public cacheable reads: ${SECONDS} s each, ${CONCURRENCY} connections; ${pinningText()}`);
    const line = (name: string, run: MeasuredLoad & { fromMemory?: number }) =>
      console.log(
        `  ${name.padEnd(34)} ${fmt(run.rate).padStart(7)}/s (p50 ${run.p50.toFixed(1)} ms, p99 ${run.p99.toFixed(1)} ms) ${statusesText(run.statuses)}; ${cpuText(run.perOp)}${run.fromMemory === undefined ? '' : `; ${(run.fromMemory * 100).toFixed(0)} % from memory`}`,
      );
    line('capability document, 304', capability);
    line('capability document, 200', capabilityFull);
    line(`JWKS, ${jwks.etag ? '304' : '200 (no ETag)'}`, jwksLoad);
    line('bare Fastify route, 304 (primitive)', bare);
    line('bare Fastify route, 200 (primitive)', bareFull);
    console.log(
      `  ratio capability/bare: ${ratioText(capability.rate / bare.rate)} (200: ${ratioText(capabilityFull.rate / bareFull.rate)} of the bare 200), JWKS/bare: ${ratioText(jwksLoad.rate / bare.rate)}; target >= 0.8 of the bare route`,
    );
    const row = (id: string, work: string, run: MeasuredLoad & { fromMemory: number }, primitiveRun = bare, status = 304): BenchRow => ({
      id,
      work,
      figure: run.rate,
      unit: '/s',
      detail: `p50 ${run.p50.toFixed(1)} ms, p99 ${run.p99.toFixed(1)} ms, ${(run.fromMemory * 100).toFixed(0)} % from memory`,
      primitive: { name: `bare Fastify route ${status}, ${CONCURRENCY} conn.`, value: primitiveRun.rate, unit: '/s' },
      ratio: run.rate / primitiveRun.rate,
      // The budget is the 304's; the full answer is measured beside it without one.
      ...(status === 304 ? { budget: '>= 0.8 of the bare route', met: run.rate / primitiveRun.rate >= RATIO_BUDGET } : {}),
      cpu: run.perOp,
      extra: { statuses: run.statuses, bareCpu: primitiveRun.perOp, fromMemory: run.fromMemory },
    });
    emitRows(
      row('capability.304', `public capability GET answering 304 from memory, ${CONCURRENCY} conn.`, capability),
      row('capability.200', `public capability GET answering 200 from memory, ${CONCURRENCY} conn.`, capabilityFull, bareFull, 200),
      row('jwks.get', `JWKS GET answering ${jwks.etag ? '304' : '200'} from memory, ${CONCURRENCY} conn.`, jwksLoad),
    );
  } finally {
    await setup.close();
    await primitive.close();
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
