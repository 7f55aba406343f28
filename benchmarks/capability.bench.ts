/**
 * Public cacheable reads: `GET /api/v1/agents/{agent_id}/capabilities` with the document's ETag in
 * If-None-Match, answering 304, through the region's HTTP router (monolithic region process), per
 * second and with p50/p99, beside the primitive measured in the same run at the same concurrency: a
 * bare Fastify route answering 304 to its ETag. The region's JWKS (`/.well-known/jwks.json`) is
 * measured the same way. CPU per answer is split by process (server, Postgres backends, load
 * generator): a cached answer should spend nothing in Postgres.
 *
 *   npm run bench:capability   (env: BENCH_SECONDS=5, BENCH_CONCURRENCY=64, BENCH_PIN=0 to leave the load
 *                               generator unpinned)
 *
 * Each request carries a distinct X-Forwarded-For, so the route's per-IP limit (60/min) does not
 * answer for it. Uses a database and bus prefix of its own, created and dropped by the run.
 */
import { CreateApplication, CreateApplicationCommand } from '@svc/decision-gateway';
import { DataSource } from 'typeorm';
import { Pool } from 'undici';
import { startBenchRegion } from './support/bench-region';
import { CpuWindow } from './support/cpu';
import { cpuText, pinningText, runLoad, statusesText, type MeasuredLoad } from './support/load';
import { BARE_ETAG, startPrimitiveRoutes } from './support/primitive-routes';
import { fmt } from './support/report';
import { emitRows, ratioText, type BenchRow } from './support/results';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 64);
const RATIO_BUDGET = 0.8;

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
    const jwks = await call('GET', '/.well-known/jwks.json', {});

    const spec = { connections: CONCURRENCY, seconds: SECONDS, warmup: CONCURRENCY * 20, method: 'GET' as const, forwardedFor: true };
    const capability = await runLoad(
      { ...spec, base, successStatus: 304, path, headers: { 'if-none-match': first.etag } },
      new CpuWindow(dataSource),
    );
    const jwksLoad = jwks.etag
      ? await runLoad(
          { ...spec, base, successStatus: 304, path: '/.well-known/jwks.json', headers: { 'if-none-match': jwks.etag } },
          new CpuWindow(dataSource),
        )
      : await runLoad({ ...spec, base, successStatus: 200, path: '/.well-known/jwks.json', headers: {} }, new CpuWindow(dataSource));
    const bare = await runLoad({
      ...spec,
      base: primitive.url,
      successStatus: 304,
      path: '/cached',
      headers: { 'if-none-match': BARE_ETAG },
    });

    console.log(`public cacheable reads: ${SECONDS} s each, ${CONCURRENCY} connections; ${pinningText()}`);
    const line = (name: string, run: MeasuredLoad) =>
      console.log(
        `  ${name.padEnd(34)} ${fmt(run.rate).padStart(7)}/s (p50 ${run.p50.toFixed(1)} ms, p99 ${run.p99.toFixed(1)} ms) ${statusesText(run.statuses)}; ${cpuText(run.perOp)}`,
      );
    line('capability document, 304', capability);
    line(`JWKS, ${jwks.etag ? '304' : '200 (no ETag)'}`, jwksLoad);
    line('bare Fastify route, 304 (primitive)', bare);
    console.log(
      `  ratio capability/bare: ${ratioText(capability.rate / bare.rate)}, JWKS/bare: ${ratioText(jwksLoad.rate / bare.rate)}; target >= 0.8 of the bare route`,
    );
    const row = (id: string, work: string, run: MeasuredLoad): BenchRow => ({
      id,
      work,
      figure: run.rate,
      unit: '/s',
      detail: `p50 ${run.p50.toFixed(1)} ms, p99 ${run.p99.toFixed(1)} ms`,
      primitive: { name: `bare Fastify route 304, ${CONCURRENCY} conn.`, value: bare.rate, unit: '/s' },
      ratio: run.rate / bare.rate,
      budget: '>= 0.8 of the bare route',
      met: run.rate / bare.rate >= RATIO_BUDGET,
      cpu: run.perOp,
      extra: { statuses: run.statuses, bareCpu: bare.perOp },
    });
    emitRows(
      row('capability.304', `public capability GET answering 304, ${CONCURRENCY} conn.`, capability),
      row('jwks.get', `JWKS GET answering ${jwks.etag ? '304' : '200'}, ${CONCURRENCY} conn.`, jwksLoad),
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
