/**
 * The load generator of the HTTP benchmarks, a process of its own (started by `runLoad`, pinned to
 * its own core when the machine has two or more), so its CPU is neither the server's nor hidden in
 * it. Reads its spec from the JSON file named by its argument; prepares (DPoP proofs, warm-up),
 * says `ready`, waits for `go`, runs the closed loop and answers `done` with its result.
 */
import { createPrivateKey, randomUUID, type JsonWebKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { SignJWT } from 'jose';
import { Pool } from 'undici';
import { selfCpuMs } from './cpu';
import type { LoadGeneratorMessage, LoadResult, LoadSpec } from './load';

function send(message: LoadGeneratorMessage): void {
  process.send?.(message);
}

async function prepareProofs(spec: NonNullable<LoadSpec['dpop']>, count: number): Promise<string[]> {
  const keys = spec.agents.map((agent) => ({
    key: createPrivateKey({ key: agent.privateJwk as JsonWebKey, format: 'jwk' }),
    jwk: agent.publicJwk,
  }));
  const proofs: string[] = [];
  for (let i = 0; i < count; i += 1) {
    const agent = keys[i % keys.length]!;
    proofs.push(
      await new SignJWT({ htm: 'POST', htu: spec.htu, jti: randomUUID() })
        .setProtectedHeader({ alg: 'EdDSA', typ: 'dpop+jwt', jwk: agent.jwk })
        .setIssuedAt()
        .sign(agent.key),
    );
  }
  return proofs;
}

async function main(): Promise<void> {
  const spec = JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as LoadSpec;
  const pool = new Pool(spec.base, { connections: spec.connections, pipelining: 1 });
  const proofs = spec.dpop ? await prepareProofs(spec.dpop, spec.dpop.budget + spec.warmup) : [];
  let next = 0;
  let exhausted = false;
  const fire = async (): Promise<{ status: number; ms: number } | undefined> => {
    const i = next++;
    const headers: Record<string, string> = { ...spec.headers };
    let body = spec.body?.replaceAll('__N__', String(i)).replaceAll('__P__', String(i % (spec.people ?? 1)));
    if (spec.dpop) {
      if (i >= proofs.length) {
        exhausted = true;
        return undefined;
      }
      headers.dpop = proofs[i]!;
      body = spec.dpop.bodies[i % spec.dpop.bodies.length];
    }
    if (spec.idempotencyKeyHeader) headers['idempotency-key'] = randomUUID();
    // Distinct client addresses, so a per-IP limit of the route does not answer for the route.
    if (spec.forwardedFor) headers['x-forwarded-for'] = `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
    const started = performance.now();
    try {
      const res = await pool.request({ method: spec.method, path: spec.path, headers, body });
      await res.body.dump();
      return { status: res.statusCode, ms: performance.now() - started };
    } catch {
      return { status: 0, ms: performance.now() - started };
    }
  };
  // Warm-up: JIT, connections, prepared paths (not timed).
  await Promise.all(
    Array.from({ length: Math.min(spec.connections, Math.max(1, spec.warmup)) }, async () => {
      while (next < spec.warmup) await fire();
    }),
  );
  send({ type: 'ready' });
  await new Promise<void>((resolve) => process.once('message', () => resolve()));

  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  const cpuStart = selfCpuMs();
  const start = performance.now();
  const deadline = start + spec.seconds * 1_000;
  await Promise.all(
    Array.from({ length: spec.connections }, async () => {
      while (performance.now() < deadline) {
        const shot = await fire();
        if (!shot) return;
        statuses[shot.status] = (statuses[shot.status] ?? 0) + 1;
        if (shot.status === spec.successStatus) latencies.push(shot.ms);
      }
    }),
  );
  const elapsed = (performance.now() - start) / 1_000;
  const cpuMs = selfCpuMs() - cpuStart;
  latencies.sort((a, b) => a - b);
  const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((latencies.length * p) / 100))] ?? NaN;
  const result: LoadResult = {
    ok: latencies.length,
    elapsed,
    rate: latencies.length / elapsed,
    p50: pct(50),
    p90: pct(90),
    p99: pct(99),
    statuses,
    cpuMs,
    exhausted,
  };
  send({ type: 'done', result });
  await pool.close();
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`load generator failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
