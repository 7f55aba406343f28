/**
 * Grant benchmark: allowed `POST /api/v1/grants` per second through the region's HTTP router
 * (monolithic region process: residency guard, auth, DPoP verification, the 15-step cascade,
 * receipt signing, the grant + decision + outbox + idempotency commit), with p50/p99 latency,
 * printed beside the raw Ed25519 signs/s of this machine measured in the same run, and the ratio.
 *
 *   npm run bench:grants   (env: BENCH_SECONDS=10, BENCH_CONCURRENCY=64, BENCH_AGENTS=64, BENCH_POOL=16)
 *
 * DPoP proofs are signed before the timed window (each proof is single-use, iat within 60 s), so the
 * client's own signing does not compete with the server for the machine's cores. Uses a database
 * and bus prefix of its own, created and dropped by the run.
 */
import { generateKeyPairSync, randomUUID, sign } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { CreateApplication, CreateApplicationCommand } from '@svc/decision-gateway';
import { startRegion } from '@svc/region-stack';
import { createTestDatabase, deleteTestStreams, freePort, testEnv, testKeyEncryptionKey, uniqueBusPrefix } from '@svc/testing';
import { SignJWT, calculateJwkThumbprint, exportJWK, type JWK } from 'jose';
import { Pool } from 'undici';
import type { KeyObject } from 'node:crypto';
import { runClosedLoop, statusLine } from './support/closed-loop';
import { fmt } from './support/report';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 64);
const AGENTS = Number(process.env.BENCH_AGENTS ?? 64);
const POOL = process.env.BENCH_POOL ?? '16';

/** Raw Ed25519 signatures per second on one core (node:crypto), the primitive every grant pays at least once. */
function ed25519SignRate(): number {
  const { privateKey } = generateKeyPairSync('ed25519');
  const message = Buffer.alloc(600, 7);
  let n = 0;
  const start = performance.now();
  while (performance.now() - start < 2_000) {
    for (let i = 0; i < 200; i += 1) sign(null, message, privateKey);
    n += 200;
  }
  return n / ((performance.now() - start) / 1_000);
}

interface BenchAgent {
  id: string;
  privateKey: KeyObject;
  jwk: JWK;
  jkt: string;
}

async function json(pool: Pool, method: 'GET' | 'POST', path: string, headers: Record<string, string>, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await pool.request({ method, path, headers: { ...headers, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined });
  const text = await res.body.text();
  return { status: res.statusCode, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

async function main(): Promise<void> {
  const signs = ed25519SignRate();
  const database = await createTestDatabase('bench_grants');
  const prefix = uniqueBusPrefix();
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const region = await startRegion(
    testEnv({
      REGION: 'us',
      DATABASE_URL: database.url,
      BUS_PREFIX: prefix,
      HTTP_PORT: String(port),
      KEY_ENCRYPTION_KEY: testKeyEncryptionKey(),
      PUBLIC_BASE_URL: base,
      REGION_URLS: `us=${base},eu=http://127.0.0.1:1,ap=http://127.0.0.1:2`,
      DATABASE_POOL_SIZE: POOL,
      SERVICE_NAME: 'bench-grants',
    }),
  );
  const pool = new Pool(base, { connections: CONCURRENCY, pipelining: 1 });
  try {
    const created = await region.app.get(CreateApplication).execute(CreateApplicationCommand.create({ name: 'bench', environment: 'development' }));
    const auth = { authorization: `Bearer ${created.apiToken}` };
    const agents: BenchAgent[] = [];
    for (let i = 0; i < AGENTS; i += 1) {
      const agent = await json(pool, 'POST', '/api/v1/agents', auth, { name: `agent-${i}` });
      const id = agent.body.id as string;
      await json(pool, 'POST', `/api/v1/agents/${id}/capabilities`, auth, { scopes: [{ id: 'payments:write', label: 'Pay' }], actions: ['pay'] });
      const authority = await json(pool, 'POST', '/api/v1/authorities', auth, {
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
      const jwk = await exportJWK(publicKey);
      agents.push({ id, privateKey, jwk, jkt: await calculateJwkThumbprint(jwk, 'sha256') });
    }
    const budget = Math.ceil(SECONDS * 6_000) + CONCURRENCY * 2;
    const proofs: string[] = [];
    for (let i = 0; i < budget; i += 1) {
      const agent = agents[i % agents.length]!;
      proofs.push(
        await new SignJWT({ htm: 'POST', htu: `${base}/api/v1/grants`, jti: randomUUID() })
          .setProtectedHeader({ alg: 'EdDSA', typ: 'dpop+jwt', jwk: agent.jwk })
          .setIssuedAt()
          .sign(agent.privateKey),
      );
    }
    const validUntil = new Date(Date.now() + 3_600_000).toISOString();
    const bodies = agents.map((agent) =>
      JSON.stringify({ agent_id: agent.id, agent_dpop_jkt: agent.jkt, scope: ['payments:write'], actions: ['pay'], valid_until: validUntil, value_bounds: { amount_per_action: '1.00', currency: 'EUR' } }),
    );
    // Warm-up: JIT, connection pool, prepared paths.
    let next = 0;
    const fire = async (): Promise<{ status: number; ms: number }> => {
      const i = next++;
      if (i >= proofs.length) throw new Error('proof budget exhausted; lower BENCH_SECONDS');
      const started = performance.now();
      const res = await pool.request({
        method: 'POST',
        path: '/api/v1/grants',
        headers: { ...auth, 'content-type': 'application/json', dpop: proofs[i]!, 'idempotency-key': randomUUID() },
        body: bodies[i % bodies.length],
      });
      await res.body.dump();
      return { status: res.statusCode, ms: performance.now() - started };
    };
    for (let i = 0; i < CONCURRENCY * 2; i += 1) await fire();
    const { rate, percentile: pct, statuses } = await runClosedLoop({ concurrency: CONCURRENCY, seconds: SECONDS, successStatus: 201, fire });
    console.log(`grants bench: ${SECONDS}s, concurrency ${CONCURRENCY}, ${AGENTS} agents/authorities, DB pool ${POOL}`);
    console.log(`  statuses: ${statusLine(statuses)}`);
    console.log(`  allowed grants/s:         ${fmt(rate)}   (p50 ${pct(50).toFixed(1)} ms, p99 ${pct(99).toFixed(1)} ms)`);
    console.log(`  raw Ed25519 signs/s:      ${fmt(signs)}   (node:crypto, one core, same run)`);
    console.log(`  ratio grants/signs:       ${(rate / signs).toFixed(3)}`);
    console.log(`  target:                   >= 3,000 grants/s with p99 < 25 ms`);
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
