/**
 * The local stack's Postgres connection budget: one setting, `DATABASE_CONNECTION_BUDGET` (default
 * 30 in monolithic mode, 60 distributed), from which every process's `DATABASE_POOL_SIZE` follows.
 * {@link RESERVED_FOR_TOOLS} connections are kept for the tools run beside the stack (the admin CLI or
 * `svc-audit`, a pool of 2, and a psql session); each region gets an equal share of the rest, and
 * inside it every process with a database keeps one connection for its outbox LISTEN and a pool of
 * the rest, shared out in the order given (the busiest first), each pool at least 1. The sum of
 * pools, listeners and the reserve never exceeds the budget.
 */

/** Default budgets, as the README states them. */
export const DEFAULT_CONNECTION_BUDGET = { monolithic: 30, distributed: 60 } as const;

/** Connections of the budget left to tools run beside the stack. */
export const RESERVED_FOR_TOOLS = 3;

/**
 * Pool sizes of the processes of one region, by name, for a budget over `regions` regions.
 * @throws Error when the budget cannot give every process a listener and a pool of 1.
 */
export function poolSizes(budget: number, regions: number, processes: readonly string[]): Record<string, number> {
  if (!Number.isInteger(budget) || budget < 1) throw new Error('DATABASE_CONNECTION_BUDGET must be a positive integer');
  const perRegion = Math.floor((budget - RESERVED_FOR_TOOLS) / regions);
  const pools = perRegion - processes.length; // one LISTEN connection each
  if (pools < processes.length) {
    throw new Error(
      `DATABASE_CONNECTION_BUDGET ${budget} is too small: ${regions} region(s) × ${processes.length} process(es) need at least ${2 * regions * processes.length + RESERVED_FOR_TOOLS}`,
    );
  }
  const base = Math.floor(pools / processes.length);
  const extra = pools % processes.length;
  return Object.fromEntries(processes.map((name, index) => [name, base + (index < extra ? 1 : 0)]));
}

/** Connections the stack may hold at most with these pools: pools plus one listener per process, all regions. */
export function connectionCeiling(pools: Record<string, number>, regions: number): number {
  return regions * Object.values(pools).reduce((total, pool) => total + pool + 1, 0);
}

/** The budget from the environment (a positive integer), else the mode's default. */
export function connectionBudget(mode: 'monolithic' | 'distributed', env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.DATABASE_CONNECTION_BUDGET;
  if (raw === undefined || raw === '') return DEFAULT_CONNECTION_BUDGET[mode];
  if (!/^[1-9][0-9]{0,4}$/.test(raw)) throw new Error('DATABASE_CONNECTION_BUDGET must be a positive integer');
  return Number(raw);
}
