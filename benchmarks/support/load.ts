import { spawn, spawnSync } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { JWK } from 'jose';
import { nextMessage } from './child-messages';
import { CpuWindow, type CpuWindowResult } from './cpu';
import type { CpuPerOp } from './results';

/** What the load generator sends: one route, a closed loop of `connections` callers. */
export interface LoadSpec {
  base: string;
  connections: number;
  seconds: number;
  /** Requests sent before the timed window (not counted). */
  warmup: number;
  successStatus: number;
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  /** Body template: `__N__` becomes the request's number, `__P__` that number modulo `people`. */
  body?: string;
  people?: number;
  /** A fresh Idempotency-Key on every request. */
  idempotencyKeyHeader?: boolean;
  /** A distinct X-Forwarded-For on every request (per-IP limits of public routes). */
  forwardedFor?: boolean;
  /** DPoP-bound requests: single-use proofs signed before the window, request i by agent i mod n with its body. */
  dpop?: { agents: Array<{ privateJwk: JWK; publicJwk: JWK }>; htu: string; budget: number; bodies: string[] };
}

/** What the load generator measured. */
export interface LoadResult {
  /** Answers with the success status. */
  ok: number;
  elapsed: number;
  rate: number;
  p50: number;
  p90: number;
  p99: number;
  statuses: Record<string, number>;
  /** The load generator's own CPU over the window, ms. */
  cpuMs: number;
  /** The prepared DPoP proofs ran out before the window ended (the rate is still over the elapsed time). */
  exhausted: boolean;
}

/** What the load generator sends over IPC (support/load-generator.ts). */
export type LoadGeneratorMessage = { type: 'ready' } | { type: 'done'; result: LoadResult };

/** A load run with the CPU of each process over its window. */
export interface MeasuredLoad extends LoadResult {
  cpu: CpuWindowResult;
  /** CPU ms per successful request, by process. */
  perOp: CpuPerOp;
}

const RUN_TS = join(__dirname, '..', '..', 'scripts', 'run-ts.js');
const GENERATOR = join(__dirname, 'load-generator.ts');

/** The cores the server and the load generator run on, when pinning applies (BENCH_PIN=0: never). */
export interface Pinning {
  server: string;
  loadgen: string;
}

let pinned: Pinning | undefined | null = null;

/**
 * On a machine of two cores or more with `taskset`: every thread of this (server) process on all
 * cores but the last, the load generator on the last. Postgres is a shared server and stays
 * unpinned. Applied once per process.
 */
export function pinning(): Pinning | undefined {
  if (pinned !== null) return pinned;
  const plan = plannedPinning();
  pinned = undefined;
  if (!plan) return pinned;
  const applied = spawnSync('taskset', ['-a', '-p', '-c', plan.server, String(process.pid)], { stdio: 'ignore' });
  if (applied.status === 0) pinned = plan;
  return pinned;
}

/** The pinning {@link pinning} would apply on this machine, without applying it. */
export function plannedPinning(): Pinning | undefined {
  const cores = availableParallelism();
  if (process.env.BENCH_PIN === '0' || cores < 2 || process.platform !== 'linux') return undefined;
  return { server: cores === 2 ? '0' : `0-${cores - 2}`, loadgen: String(cores - 1) };
}

/** `server on CPU 0, load generator on CPU 1 (taskset)` or `unpinned`. */
export function pinningText(): string {
  const plan = pinning();
  return plan ? `server on CPU ${plan.server}, load generator on CPU ${plan.loadgen} (taskset), Postgres unpinned` : 'unpinned';
}

/**
 * Runs the load generator in its own process against `spec`, and measures the CPU of this process
 * and of the Postgres backends of `cpu`'s database over exactly its timed window.
 */
export async function runLoad(spec: LoadSpec, cpu: CpuWindow = new CpuWindow()): Promise<MeasuredLoad> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-load-'));
  const file = join(dir, 'spec.json');
  writeFileSync(file, JSON.stringify(spec));
  const plan = pinning();
  const args = [RUN_TS, GENERATOR, file];
  const child = plan
    ? spawn('taskset', ['-c', plan.loadgen, process.execPath, ...args], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
    : spawn(process.execPath, args, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  try {
    await nextMessage<LoadGeneratorMessage, 'ready'>(child, 'load generator', 'ready');
    await cpu.start();
    child.send({ type: 'go' });
    const { result } = await nextMessage<LoadGeneratorMessage, 'done'>(child, 'load generator', 'done');
    const window = await cpu.stop();
    const load = result;
    const per = (ms: number | undefined) => (ms === undefined || load.ok === 0 ? undefined : ms / load.ok);
    return { ...load, cpu: window, perOp: { server: per(window.serverMs), postgres: per(window.postgresMs), loadgen: per(load.cpuMs) } };
  } finally {
    if (child.exitCode === null) child.kill();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** `201=7155 400=2`: the statuses of a run for the report. */
export function statusesText(statuses: Record<string, number>): string {
  return Object.entries(statuses)
    .map(([status, count]) => `${status}=${count}`)
    .join(' ');
}

/** `0.42 server + 0.31 Postgres + 0.08 load generator`: CPU ms per operation. */
export function cpuText(perOp: CpuPerOp): string {
  const part = (ms: number | undefined, name: string) => (ms === undefined ? undefined : `${ms.toFixed(3)} ${name}`);
  return (
    [part(perOp.server, 'server'), part(perOp.postgres, 'Postgres'), part(perOp.loadgen, 'load generator')].filter(Boolean).join(' + ') +
    ' ms CPU/op'
  );
}
