/**
 * Every named fault point, the one list: the places where a process may be killed on purpose by
 * the kill tests (`SIGKILL`, nothing runs after it), each between two steps whose order the
 * platform's guarantees depend on. Code marks one with `faultPoint(name)`.
 */
export const FAULT_POINTS = {
  /** The platform `Idempotency-Key` store claimed the key (in flight, locked); the handler has not run. */
  'idempotency.after-claim': 'after an Idempotency-Key is claimed, before the business transaction',
  /** A request under an Idempotency-Key ran (its business transaction committed, its claim marked applied); its answer is not stored. */
  'idempotency.after-commit': 'after a request under an Idempotency-Key ran, before its answer is stored',
  /** A grant batch committed (grants, decisions, outbox rows, stored answers); no caller has its answer. */
  'grant.after-commit': 'after a grant batch commits, before the responses',
  /** A consent record committed with its outbox row; the caller has no answer. */
  'record.after-commit': 'after a consent record commits, before the response',
  /** The outbox relay's batch is on the bus; its rows are not yet marked published. */
  'outbox.after-publish': 'between publishing an outbox batch and marking its rows published',
  /** An event consumer's handler committed its side effect; the message is not acknowledged. */
  'consumer.after-effect': "after a consumer's side effect, before its ack",
  /** A webhook receiver answered; the delivery's outcome is not recorded. */
  'webhook.after-2xx': "between a webhook receiver's answer and the delivery mark",
} as const;

export type FaultPointName = keyof typeof FAULT_POINTS;

/**
 * Variable arming fault points: comma-separated `name`, `name#N` (killed on the Nth time the point
 * is reached; the first time by default) or `name@P` (killed with probability P each time).
 * Ignored when NODE_ENV is `production`.
 */
export const FAULT_POINTS_VARIABLE = 'SVC_FAULT_POINTS';

/** How one armed point fires. */
export interface FaultArming {
  /** Killed on this hit (1-based), when set. */
  nth?: number;
  /** Killed with this probability on each hit, when set. */
  probability?: number;
}

const ARMING = /^([a-z0-9.-]+)(?:#([1-9][0-9]*)|@(0(?:\.[0-9]+)?|1(?:\.0+)?))?$/;

/**
 * Reads {@link FAULT_POINTS_VARIABLE}; `undefined` when nothing is armed (or NODE_ENV is
 * `production`). An unknown point or a malformed entry is an error naming the variable.
 */
export function parseFaultPoints(env: Readonly<Record<string, string | undefined>>): ReadonlyMap<FaultPointName, FaultArming> | undefined {
  const value = env[FAULT_POINTS_VARIABLE]?.trim();
  if (!value || env.NODE_ENV === 'production') return undefined;
  const armed = new Map<FaultPointName, FaultArming>();
  for (const entry of value.split(',').map((part) => part.trim())) {
    const match = ARMING.exec(entry);
    if (!match || !(match[1]! in FAULT_POINTS)) {
      throw new Error(
        `${FAULT_POINTS_VARIABLE}: "${entry}" is not name, name#N or name@P of a fault point (${Object.keys(FAULT_POINTS).join(', ')})`,
      );
    }
    armed.set(match[1] as FaultPointName, match[3] !== undefined ? { probability: Number(match[3]) } : { nth: Number(match[2] ?? 1) });
  }
  return armed;
}

const armed = parseFaultPoints(process.env);
const hits = new Map<FaultPointName, number>();

/**
 * Marks a named fault point (see {@link FAULT_POINTS}). Does nothing unless the process was started
 * with the point armed in {@link FAULT_POINTS_VARIABLE}; then, when the arming says so, the process
 * says which point it reached on stderr and kills itself with SIGKILL on the spot.
 */
export function faultPoint(name: FaultPointName): void {
  if (armed === undefined) return;
  const arming = armed.get(name);
  if (!arming) return;
  const hit = (hits.get(name) ?? 0) + 1;
  hits.set(name, hit);
  if (arming.nth === hit || (arming.probability !== undefined && Math.random() < arming.probability)) {
    // Synchronous on a pipe or file (how a supervisor reads it): written before the kill.
    process.stderr.write(`fault point ${name} reached: SIGKILL\n`);
    process.kill(process.pid, 'SIGKILL');
  }
}
