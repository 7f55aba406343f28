import { readFileSync, readdirSync } from 'node:fs';
import type { DataSource } from 'typeorm';

/** Clock ticks per second of /proc/<pid>/stat (USER_HZ: 100 on Linux). */
const TICKS_PER_SECOND = 100;

/** CPU time (user + system) of a process, ms; undefined when it is gone or /proc is unreadable. */
export function processCpuMs(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces: fields are counted after its closing parenthesis.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const utime = Number(fields[11]);
    const stime = Number(fields[12]);
    return ((utime + stime) * 1_000) / TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}

/** This process's CPU time, ms (µs precision). */
export function selfCpuMs(): number {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1_000;
}

/** Pids of the Postgres backends connected to the data source's database. */
export async function backendPids(dataSource: DataSource): Promise<number[]> {
  const rows = (await dataSource.query('SELECT pid FROM pg_stat_activity WHERE datname = current_database()')) as Array<{ pid: number }>;
  return rows.map((row) => Number(row.pid));
}

/** A database's counters from pg_stat_database (commits, rows written and read). */
export interface DatabaseCounters {
  commits: number;
  inserted: number;
  updated: number;
  deleted: number;
  fetched: number;
}

async function databaseCounters(dataSource: DataSource): Promise<DatabaseCounters> {
  // The statistics collector reports with a delay of up to 500 ms; a fresh snapshot is forced.
  await dataSource.query('SELECT pg_stat_clear_snapshot()');
  const [row] = (await dataSource.query(
    'SELECT xact_commit AS commits, tup_inserted AS inserted, tup_updated AS updated, tup_deleted AS deleted, tup_fetched AS fetched FROM pg_stat_database WHERE datname = current_database()',
  )) as Array<Record<keyof DatabaseCounters, string>>;
  return {
    commits: Number(row?.commits),
    inserted: Number(row?.inserted),
    updated: Number(row?.updated),
    deleted: Number(row?.deleted),
    fetched: Number(row?.fetched),
  };
}

/** A server process measured from outside (a service instance of a distributed region), by name. */
export interface ServerProcess {
  /** Groups the report sums by (`oap-authorizer`, `residency-router`, …). */
  name: string;
  pid: number;
}

/** The processes whose command (`/proc/<pid>/comm`) is `command`, named `name`. */
export function processesByCommand(command: string, name = command): ServerProcess[] {
  const found: ServerProcess[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === command) found.push({ name, pid: Number(entry) });
    } catch {
      // Gone meanwhile.
    }
  }
  return found;
}

/** CPU of named processes over a window, from /proc at both ends, summed by name. */
class NamedProcessesWindow {
  private started = new Map<number, { name: string; ms: number }>();

  constructor(private readonly list: () => ServerProcess[]) {}

  start(): void {
    this.started = new Map();
    for (const { name, pid } of this.list()) {
      const ms = processCpuMs(pid);
      if (ms !== undefined) this.started.set(pid, { name, ms });
    }
  }

  /** A process that ended during the window is lost; one that started in it counts from zero. */
  stop(): Record<string, number> {
    const byName: Record<string, number> = {};
    const seen = new Map(this.list().map(({ name, pid }) => [pid, name]));
    for (const [pid, { name }] of this.started) seen.set(pid, name);
    for (const [pid, name] of seen) {
      const end = processCpuMs(pid);
      if (end === undefined) continue;
      byName[name] = (byName[name] ?? 0) + end - (this.started.get(pid)?.ms ?? 0);
    }
    return byName;
  }
}

/** CPU of the window, ms, split by process, and the database's counters over it. */
export interface CpuWindowResult {
  serverMs: number;
  /** With server processes of its own: their CPU summed by name (serverMs is the total). */
  serverByName?: Record<string, number>;
  /** Shared servers measured beside (e.g. nats-server): their CPU by name, others' work included. */
  sharedByName?: Record<string, number>;
  postgresMs?: number;
  backends: number;
  counters?: DatabaseCounters;
}

/**
 * CPU spent by this process (or the server processes given) and by the Postgres backends of a
 * database between `start()` and `stop()`: /proc/<pid>/stat utime + stime of every backend of the database (pg_stat_activity),
 * read at both ends. A backend that appears during the window counts from zero; one that ends
 * during it is lost (pools keep theirs open for the run). Postgres' shared background processes
 * (WAL writer, checkpointer) are not counted: they serve every database of the shared server.
 */
export class CpuWindow {
  private serverStart = 0;
  private backendStart = new Map<number, number>();
  private countersStart?: DatabaseCounters;
  private readonly servers?: NamedProcessesWindow;
  private readonly shared?: NamedProcessesWindow;

  /**
   * `servers`: the server is those processes instead of this one (a region of several processes).
   * `shared`: shared servers whose CPU over the window is reported beside, not in the server's.
   */
  constructor(
    private readonly dataSource?: DataSource,
    options: { servers?: () => ServerProcess[]; shared?: () => ServerProcess[] } = {},
  ) {
    if (options.servers) this.servers = new NamedProcessesWindow(options.servers);
    if (options.shared) this.shared = new NamedProcessesWindow(options.shared);
  }

  async start(): Promise<void> {
    if (this.dataSource) {
      this.backendStart = new Map();
      for (const pid of await backendPids(this.dataSource)) {
        const ms = processCpuMs(pid);
        if (ms !== undefined) this.backendStart.set(pid, ms);
      }
      this.countersStart = await databaseCounters(this.dataSource).catch(() => undefined);
    }
    this.servers?.start();
    this.shared?.start();
    this.serverStart = selfCpuMs();
  }

  async stop(): Promise<CpuWindowResult> {
    let serverMs = selfCpuMs() - this.serverStart;
    const serverByName = this.servers?.stop();
    const sharedByName = this.shared?.stop();
    if (serverByName) serverMs = Object.values(serverByName).reduce((sum, ms) => sum + ms, 0);
    if (!this.dataSource) return { serverMs, serverByName, sharedByName, backends: 0 };
    let postgresMs = 0;
    let readable = 0;
    const pids = new Set([...(await backendPids(this.dataSource)), ...this.backendStart.keys()]);
    for (const pid of pids) {
      const end = processCpuMs(pid);
      if (end === undefined) continue;
      readable += 1;
      postgresMs += end - (this.backendStart.get(pid) ?? 0);
    }
    const end = await databaseCounters(this.dataSource).catch(() => undefined);
    const start = this.countersStart;
    const counters =
      start && end
        ? {
            commits: end.commits - start.commits,
            inserted: end.inserted - start.inserted,
            updated: end.updated - start.updated,
            deleted: end.deleted - start.deleted,
            fetched: end.fetched - start.fetched,
          }
        : undefined;
    return { serverMs, serverByName, sharedByName, postgresMs: readable > 0 ? postgresMs : undefined, backends: readable, counters };
  }
}
