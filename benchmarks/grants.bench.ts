/**
 * Grant benchmark: allowed `POST /api/v1/grants` per second through the region's HTTP router
 * (monolithic region process: residency guard, auth, DPoP verification, the 15-step cascade,
 * receipt signing, the grant + decision + outbox + idempotency commit), with p50/p99 latency,
 * beside the primitive measured in the same run at the same concurrency: a bare Fastify route that
 * parses the JSON body and signs a JWT with `jose`. CPU per allowed grant is split by process
 * (server, the Postgres backends of the run's database, the load generator), with the database's
 * commits and rows written per grant; `pg_stat_statements`' top statements when the server has the
 * extension loaded (`shared_preload_libraries = 'pg_stat_statements'`; point TEST_DATABASE_SERVER at
 * such a server when the default one does not preload it).
 *
 *   npm run bench:grants   (env: BENCH_SECONDS=10, BENCH_CONCURRENCY=64, BENCH_AGENTS=64, BENCH_POOL=16,
 *                           BENCH_CURVE=1,16,64,256 for the scaling curve instead of one concurrency,
 *                           BENCH_PIN=0 to leave the load generator unpinned,
 *                           BENCH_INSTANCES=monolithic (default) | n | monolithic,n: see below,
 *                           BENCH_BUDGET=70 the distributed region's Postgres connection budget)
 *
 * BENCH_INSTANCES=2 measures the distributed region instead (`npm run start:distributed` with
 * SVC_INSTANCES=2, region us only: two processes of each of the seven services, the launcher runs
 * every service the same number of times, behind the region's router, which takes the instances in
 * turn); `monolithic,2` measures both, one after the other, in one run. The same agents, DPoP
 * proofs and load go through the router; the server's CPU is then the sum of the region's processes
 * (router and every service instance, read from /proc), printed by service. Its processes share the server cores (pinned like the monolithic
 * region's process) and the launcher's connection budget (BENCH_BUDGET, split evenly over the
 * processes, the busiest first). The budgets of the table apply to the monolithic region; the
 * distributed rows (`grants.distributed2.*`) stand beside them.
 *
 * Before the load, each region's CPU with no load (ms per second, by process) is printed, and with
 * each level the CPU per grant of the NATS server when it runs on this machine (a shared server:
 * not in the sum).
 *
 * The load generator is a process of its own (pinned to the last core when there are two or more;
 * see support/load.ts); its DPoP proofs are signed before the timed window (each proof is
 * single-use, iat within 60 s). Uses a database and bus prefix of its own, created and dropped by
 * the run (the distributed region also its ports and state folder; its processes are stopped
 * however the run ends). SVC_CPU_PROF_DIR=<folder> makes each process of the distributed region
 * write a CPU profile there when it stops; `--cpu-prof` profiles the monolithic one.
 */
import { generateKeyPairSync } from 'node:crypto';
import { CreateApplication, CreateApplicationCommand } from '@svc/decision-gateway';
import { calculateJwkThumbprint, exportJWK, type JWK } from 'jose';
import { DataSource } from 'typeorm';
import { Pool } from 'undici';
import { createDataSource } from '@svc/persistence';
import { startDistributedBenchRegion } from './support/bench-distributed';
import { startBenchRegion } from './support/bench-region';
import { CpuWindow, processesByCommand } from './support/cpu';
import { cpuText, pinningText, runLoad, statusesText, type MeasuredLoad } from './support/load';
import { startPrimitiveRoutes } from './support/primitive-routes';
import { fmt } from './support/report';
import { emitRows, ratioText, type BenchRow } from './support/results';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 64);
const CURVE = process.env.BENCH_CURVE?.split(',').map(Number);
const AGENTS = Number(process.env.BENCH_AGENTS ?? 64);
const POOL = process.env.BENCH_POOL ?? '16';
/** The distributed region's Postgres connection budget, shared by its processes (the launcher's DATABASE_CONNECTION_BUDGET). */
const BUDGET = Number(process.env.BENCH_BUDGET ?? 70);
/** Proofs prepared per connection level: enough for this rate over the window. */
const MAX_RATE = Number(process.env.BENCH_MAX_RATE ?? 4_000);
const RATE_BUDGET = 3_000;
const P99_BUDGET_MS = 25;
const CPU_BUDGET_MS = 0.6;

async function json(
  pool: Pool,
  method: 'GET' | 'POST',
  path: string,
  headers: Record<string, string>,
  body?: unknown,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await pool.request({
    method,
    path,
    headers: { ...headers, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.body.text();
  return { status: res.statusCode, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

/** The top statements of the window by total time, or why there are none. */
async function topStatements(dataSource: DataSource, grants: number): Promise<string[]> {
  try {
    const rows = (await dataSource.query(
      `SELECT calls, total_exec_time AS total, mean_exec_time AS mean, left(regexp_replace(query, '\\s+', ' ', 'g'), 110) AS query
         FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
         ORDER BY total_exec_time DESC LIMIT 12`,
    )) as Array<{ calls: string; total: number; mean: number; query: string }>;
    return rows.map(
      (r) =>
        `${(Number(r.calls) / Math.max(1, grants)).toFixed(2).padStart(6)}/grant ${Number(r.total).toFixed(0).padStart(7)} ms total ${Number(r.mean).toFixed(3).padStart(7)} ms mean  ${r.query}`,
    );
  } catch (error) {
    return [`(pg_stat_statements unavailable: ${error instanceof Error ? error.message : String(error)})`];
  }
}

async function resetStatements(dataSource: DataSource): Promise<void> {
  try {
    await dataSource.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    await dataSource.query('SELECT pg_stat_statements_reset()');
  } catch {
    // Reported by topStatements.
  }
}

/** The NATS server on this machine, when it runs here (a shared server: others' traffic counts too). */
const natsServer = () => processesByCommand('nats-server');

/** A region under load: where to send requests, how to measure it, how to stop it. */
interface Target {
  /** `monolithic` or `distributed, 2 instances of every service`. */
  label: string;
  /** Prefix of the rows' ids (`grants` for the monolithic region, the default). */
  id: string;
  base: string;
  apiToken: string;
  dataSource: DataSource;
  cpuWindow(): CpuWindow;
  /** How the region runs, for the report. */
  about: string;
  close(): Promise<void>;
}

async function monolithicTarget(): Promise<Target> {
  const bench = await startBenchRegion('grants', { poolSize: POOL });
  try {
    const dataSource = bench.region.app.get(DataSource);
    const created = await bench.region.app
      .get(CreateApplication)
      .execute(CreateApplicationCommand.create({ name: 'bench', environment: 'development' }));
    return {
      label: 'monolithic',
      id: 'grants',
      base: bench.base,
      apiToken: created.apiToken,
      dataSource,
      cpuWindow: () => new CpuWindow(dataSource, { shared: natsServer }),
      about: `monolithic region in this process, DB pool ${POOL}; ${pinningText()}`,
      close: () => bench.close(),
    };
  } catch (error) {
    await bench.close();
    throw error;
  }
}

async function distributedTarget(instances: number): Promise<Target> {
  // Before the launcher starts: its processes inherit the server cores.
  const pinText = pinningText();
  const region = await startDistributedBenchRegion(`grants${instances}`, { instances, budget: BUDGET });
  try {
    const dataSource = createDataSource({ url: region.databaseUrl, poolSize: 1, applicationName: 'bench-grants-cpu' });
    await dataSource.initialize();
    return {
      label: `distributed, ${instances} instance${instances === 1 ? '' : 's'} of every service`,
      id: `grants.distributed${instances}`,
      base: region.base,
      apiToken: region.apiToken,
      dataSource,
      cpuWindow: () => new CpuWindow(dataSource, { servers: () => region.processes(), shared: natsServer }),
      about: `distributed region (${instances} instance${instances === 1 ? '' : 's'} of each of 7 services + router, ${region.processes().length} processes, ready in ${region.bootSeconds.toFixed(0)} s), connection budget ${region.budget}; ${pinText.replace('server on', 'every process of the region on')}`,
      close: async () => {
        await dataSource.destroy().catch(() => undefined);
        await region.close();
      },
    };
  } catch (error) {
    await region.close();
    throw error;
  }
}

/** `3.567 oap-authorizer + 1.200 audit-chain + …`: server CPU per unit by process name, the busiest first. */
function serverSplitText(byName: Record<string, number> | undefined, per: number): string | undefined {
  if (!byName || per <= 0) return undefined;
  return Object.entries(byName)
    .sort(([, a], [, b]) => b - a)
    .map(([name, ms]) => `${(ms / per).toFixed(3)} ${name}`)
    .join(' + ');
}

/** Seconds the region idles before the idle window (events of the setup settle), and the window. */
const IDLE_SETTLE_MS = 2_000;
const IDLE_WINDOW_MS = 5_000;

/** The region's CPU with no load, ms per second: what its processes spend on their own (pollers, timers, heartbeats). */
async function idleCpu(target: Target): Promise<string> {
  await new Promise((resolve) => setTimeout(resolve, IDLE_SETTLE_MS));
  const window = target.cpuWindow();
  const started = Date.now();
  await window.start();
  await new Promise((resolve) => setTimeout(resolve, IDLE_WINDOW_MS));
  const cpu = await window.stop();
  const seconds = (Date.now() - started) / 1_000;
  const split = serverSplitText(cpu.serverByName, seconds);
  const nats = cpu.sharedByName?.['nats-server'];
  return (
    `idle (${seconds.toFixed(1)} s, no load): ${(cpu.serverMs / seconds).toFixed(1)} server + ${((cpu.postgresMs ?? 0) / seconds).toFixed(1)} Postgres ms CPU/s` +
    (split ? ` (server: ${split})` : '') +
    (nats === undefined ? '' : `; nats-server ${(nats / seconds).toFixed(1)} ms CPU/s`)
  );
}

async function measure(target: Target): Promise<BenchRow[]> {
  const { base } = target;
  const primitive = await startPrimitiveRoutes();
  const setup = new Pool(base, { connections: 8, pipelining: 1 });
  try {
    const dataSource = target.dataSource;
    const auth = { authorization: `Bearer ${target.apiToken}` };
    const agents: Array<{ privateJwk: JWK; publicJwk: JWK }> = [];
    const bodies: string[] = [];
    const validUntil = new Date(Date.now() + 3_600_000).toISOString();
    for (let i = 0; i < AGENTS; i += 1) {
      const agent = await json(setup, 'POST', '/api/v1/agents', auth, { name: `agent-${i}` });
      const id = agent.body.id as string;
      await json(setup, 'POST', `/api/v1/agents/${id}/capabilities`, auth, {
        scopes: [{ id: 'payments:write', label: 'Pay' }],
        actions: ['pay'],
      });
      const authority = await json(setup, 'POST', '/api/v1/authorities', auth, {
        agent_id: id,
        principal_id: 'bench-user',
        scope_bounds: { allowed: ['payments:*'] },
        action_bounds: { allowed: ['pay'] },
        value_bounds: { currency: 'EUR', per_action: '100', aggregate: '100000000' },
        time_bounds: { hours_utc: [0, 24] },
        reputation_bounds: { min_trust_score: 0 },
        oap_sequence_bounds: { max_per_minute: 1_000_000, max_continuation_depth: 2 },
        valid_until: new Date(Date.now() + 86_400_000).toISOString(),
      });
      if (authority.status !== 201) throw new Error(`authority setup failed: ${authority.status} ${JSON.stringify(authority.body)}`);
      const { privateKey, publicKey } = generateKeyPairSync('ed25519');
      const publicJwk = await exportJWK(publicKey);
      agents.push({ privateJwk: await exportJWK(privateKey), publicJwk });
      bodies.push(
        JSON.stringify({
          agent_id: id,
          agent_dpop_jkt: await calculateJwkThumbprint(publicJwk, 'sha256'),
          scope: ['payments:write'],
          actions: ['pay'],
          valid_until: validUntil,
          value_bounds: { amount_per_action: '1.00', currency: 'EUR' },
        }),
      );
    }

    const grantsAt = async (connections: number, statements: boolean): Promise<MeasuredLoad & { statements?: string[] }> => {
      if (statements) await resetStatements(dataSource);
      const budget = Math.ceil(Math.min(MAX_RATE, connections * 1_000) * SECONDS);
      const load = await runLoad(
        {
          base,
          connections,
          seconds: SECONDS,
          warmup: connections * 2,
          successStatus: 201,
          method: 'POST',
          path: '/api/v1/grants',
          headers: { ...auth, 'content-type': 'application/json' },
          idempotencyKeyHeader: true,
          dpop: { agents, htu: `${base}/api/v1/grants`, budget, bodies },
        },
        target.cpuWindow(),
      );
      return statements ? { ...load, statements: await topStatements(dataSource, load.ok) } : load;
    };

    const idle = await idleCpu(target);
    const levels = CURVE ?? [CONCURRENCY];
    const main = levels.includes(CONCURRENCY) ? CONCURRENCY : levels[levels.length - 1]!;
    const runs = new Map<number, MeasuredLoad & { statements?: string[] }>();
    for (const level of levels) runs.set(level, await grantsAt(level, level === main));
    const route = await runLoad({
      base: primitive.url,
      connections: main,
      seconds: Math.min(SECONDS, 5),
      warmup: main * 4,
      successStatus: 201,
      method: 'POST',
      path: '/sign',
      headers: { 'content-type': 'application/json' },
      body: bodies[0],
    });

    const monolithic = target.id === 'grants';
    const suffix = monolithic ? '' : ` (${target.label})`;
    console.log(`grants bench, ${target.label}: ${SECONDS} s per level, ${AGENTS} agents/authorities; ${target.about}`);
    console.log(`  ${idle}`);
    const rows: BenchRow[] = [];
    for (const [level, run] of runs) {
      const ratio = run.rate / route.rate;
      console.log(
        `  ${String(level).padStart(3)} connections: ${fmt(run.rate)} allowed grants/s (p50 ${run.p50.toFixed(1)} ms, p99 ${run.p99.toFixed(1)} ms)  statuses ${statusesText(run.statuses)}${run.exhausted ? '  (proofs exhausted)' : ''}`,
      );
      console.log(`       ${cpuText(run.perOp)}; ${run.cpu.backends} backends`);
      const split = serverSplitText(run.cpu.serverByName, run.ok);
      if (split) console.log(`       server CPU/op by process: ${split}`);
      const nats = run.cpu.sharedByName?.['nats-server'];
      if (nats !== undefined && run.ok > 0)
        console.log(`       nats-server (shared, not in the sum): ${(nats / run.ok).toFixed(3)} ms CPU/op`);
      if (run.cpu.counters && run.ok > 0) {
        const c = run.cpu.counters;
        const per = (n: number) => (n / run.ok).toFixed(2);
        console.log(
          `       per grant: ${per(c.commits)} commits, ${per(c.inserted)} rows inserted, ${per(c.updated)} updated, ${per(c.deleted)} deleted, ${per(c.fetched)} fetched`,
        );
      }
      const isMain = level === main;
      // The budgets are the monolithic region's; the distributed rows are figures beside them.
      const budgeted = monolithic && (isMain || level === 64);
      rows.push({
        id: isMain ? `${target.id}.${level}` : `${target.id}.curve.${level}`,
        work: `allowed grants, ${level} connections${isMain ? '' : ' (curve)'}${suffix}`,
        figure: run.rate,
        unit: '/s',
        detail: `p50 ${run.p50.toFixed(1)} ms, p99 ${run.p99.toFixed(1)} ms`,
        primitive: isMain ? { name: `jose-signing Fastify route, ${main} conn.`, value: route.rate, unit: '/s' } : undefined,
        ratio: isMain ? ratio : undefined,
        budget: budgeted ? (isMain ? `>= 3,000/s, p99 < 25 ms` : 'p99 < 25 ms') : undefined,
        met: budgeted ? (isMain ? run.rate >= RATE_BUDGET && run.p99 < P99_BUDGET_MS : run.p99 < P99_BUDGET_MS) : undefined,
        cpu: run.perOp,
        extra: {
          statuses: run.statuses,
          p90: run.p90,
          exhausted: run.exhausted,
          natsServerPerOp:
            run.cpu.sharedByName?.['nats-server'] !== undefined && run.ok > 0 ? run.cpu.sharedByName['nats-server'] / run.ok : undefined,
          serverByName:
            run.cpu.serverByName && run.ok > 0
              ? Object.fromEntries(Object.entries(run.cpu.serverByName).map(([k, v]) => [k, v / run.ok]))
              : undefined,
          perGrant:
            run.cpu.counters && run.ok > 0
              ? Object.fromEntries(Object.entries(run.cpu.counters).map(([k, v]) => [k, v / run.ok]))
              : undefined,
        },
      });
    }
    const mainRun = runs.get(main)!;
    console.log(
      `  primitive, same run: jose-signing Fastify route, ${main} connections: ${fmt(route.rate)}/s (p99 ${route.p99.toFixed(1)} ms); ${cpuText(route.perOp)}`,
    );
    console.log(
      `  ratio grants/route: ${ratioText(mainRun.rate / route.rate)}; target >= 3,000 grants/s with p99 < 25 ms (>= 0.35 of the route)`,
    );
    const allIn = (mainRun.perOp.server ?? 0) + (mainRun.perOp.postgres ?? 0);
    rows.push({
      id: `${target.id}.cpu`,
      work: `CPU per allowed grant (server + Postgres), ${main} conn.${suffix}`,
      figure: allIn,
      unit: 'ms',
      primitive:
        route.perOp.server === undefined
          ? undefined
          : { name: 'CPU per signed answer of the route', value: route.perOp.server, unit: 'ms' },
      ratio: route.perOp.server ? allIn / route.perOp.server : undefined,
      budget: monolithic ? '<= 0.6 ms all included' : undefined,
      met: monolithic ? allIn <= CPU_BUDGET_MS : undefined,
      cpu: mainRun.perOp,
    });
    if (mainRun.statements) {
      console.log(`  pg_stat_statements, ${main} connections (calls per grant, total, mean):`);
      for (const line of mainRun.statements) console.log(`    ${line}`);
      rows[rows.findIndex((r) => r.id === `${target.id}.${main}`)]!.extra!.statements = mainRun.statements;
    }
    return rows;
  } finally {
    await setup.close();
    await primitive.close();
  }
}

/** BENCH_INSTANCES: `monolithic` (default) or n (distributed, n instances of every service), comma-separated, run in turn. */
function stacks(): Array<'monolithic' | number> {
  return (process.env.BENCH_INSTANCES ?? 'monolithic').split(',').map((entry) => {
    const name = entry.trim();
    if (name === 'monolithic') return 'monolithic';
    if (/^[1-9]$/.test(name)) return Number(name);
    throw new Error(`BENCH_INSTANCES: "${name}" is neither "monolithic" nor a number of instances from 1 to 9`);
  });
}

async function main(): Promise<void> {
  const rows: BenchRow[] = [];
  for (const stack of stacks()) {
    const target = stack === 'monolithic' ? await monolithicTarget() : await distributedTarget(stack);
    try {
      rows.push(...(await measure(target)));
    } finally {
      await target.close();
    }
  }
  emitRows(...rows);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
