/**
 * `npm run bench`: runs every benchmark, each in a process of its own, one after the other, and
 * prints ONE table: each figure beside its primitive measured in the same run, the ratio, the
 * budget (ARCHITECTURE, Performance), met or not, and CPU per operation split by process (server,
 * the Postgres backends of the run's database, the load generator). The rows also go to
 * `benchmarks/results/latest.json` (git-ignored).
 *
 *   npm run bench                          every benchmark
 *   npm run bench -- --only grants,records  some of them (grants, records, import, audit, webhooks, capability, decision)
 *   npm run bench -- --curve               grants at 1, 16, 64, 256 connections too (the scaling curve)
 *   npm run bench -- --two-instances       grants in the distributed region with two instances of every
 *                                          service too, after the monolithic region (BENCH_INSTANCES=monolithic,2;
 *                                          with --curve, both curves)
 *   npm run bench -- --cpu-prof            CPU profiles of each benchmark process, and of the server
 *                                          processes a benchmark starts, in benchmarks/results/profiles/
 *   npm run bench -- --seconds 5           the timed window of each HTTP load (BENCH_SECONDS)
 *
 * Each benchmark's own variables (BENCH_CONCURRENCY, BENCH_POOL, BENCH_PIN=0 …) pass through; see
 * its header. Each benchmark also runs on its own: `npm run bench:<name>`.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { plannedPinning } from './support/load';
import { ratioText, type BenchRow } from './support/results';

const BENCHES = ['grants', 'records', 'import', 'audit', 'webhooks', 'capability', 'decision'];
const ROOT = join(__dirname, '..');
const RESULTS = join(__dirname, 'results');

interface Options {
  only: string[];
  curve: boolean;
  twoInstances: boolean;
  cpuProf: boolean;
  seconds?: string;
}

function parse(argv: string[]): Options {
  const options: Options = { only: BENCHES, curve: false, twoInstances: false, cpuProf: false };
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i]!;
    if (arg === '--curve') options.curve = true;
    else if (arg === '--two-instances') options.twoInstances = true;
    else if (arg === '--cpu-prof') options.cpuProf = true;
    else if (arg === '--only') options.only = (argv[++i] ?? '').split(',').filter(Boolean);
    else if (arg === '--seconds') options.seconds = argv[++i];
    else throw new Error(`unknown option ${arg} (--only a,b --curve --two-instances --cpu-prof --seconds n)`);
  }
  const unknown = options.only.filter((name) => !BENCHES.includes(name));
  if (unknown.length > 0) throw new Error(`--only: unknown benchmark ${unknown.join(', ')} (one of ${BENCHES.join(', ')})`);
  return options;
}

function runBench(name: string, options: Options, resultFile: string): Promise<number> {
  const env: NodeJS.ProcessEnv = { ...process.env, BENCH_RESULT_FILE: resultFile };
  if (options.seconds) env.BENCH_SECONDS = options.seconds;
  if (name === 'grants' && options.curve) env.BENCH_CURVE = env.BENCH_CURVE ?? '1,16,64,256';
  if (name === 'grants' && options.twoInstances) env.BENCH_INSTANCES = 'monolithic,2';
  const profile = options.cpuProf
    ? ['--cpu-prof', `--cpu-prof-dir=${join(RESULTS, 'profiles')}`, `--cpu-prof-name=${name}.${Date.now()}.cpuprofile`]
    : [];
  // Server processes of their own (the import's, the distributed region's) write theirs beside it.
  if (options.cpuProf) env.SVC_CPU_PROF_DIR = env.SVC_CPU_PROF_DIR ?? join(RESULTS, 'profiles');
  // The benchmark runs with this process' Node flags (package.json's: those the image sets too).
  const nodeFlags = process.execArgv.filter((flag) => flag.startsWith('--max-semi-space-size'));
  const child = spawn(
    process.execPath,
    [...nodeFlags, ...profile, join(ROOT, 'scripts', 'run-ts.js'), join(__dirname, `${name}.bench.ts`)],
    {
      cwd: ROOT,
      env,
      stdio: 'inherit',
    },
  );
  return new Promise((resolve) => child.once('exit', (code) => resolve(code ?? 1)));
}

const num = (n: number | undefined, unit = ''): string => {
  if (n === undefined || !Number.isFinite(n)) return '';
  const text = Math.abs(n) >= 100 ? Math.round(n).toLocaleString('en-US') : Math.abs(n) >= 1 ? n.toFixed(1) : n.toFixed(3);
  return `${text}${unit === '/s' ? '/s' : unit ? ` ${unit}` : ''}`;
};
const cpu = (ms: number | undefined): string => (ms === undefined ? '–' : ms.toFixed(3));

/** The table, in Markdown (it reads as plain text too). */
export function table(rows: BenchRow[]): string {
  const header = ['work', 'figure', 'detail', 'primitive, same run', 'ratio', 'budget', 'met', 'CPU ms/op server', 'Postgres', 'load gen.'];
  const lines = rows.map((row) => [
    row.work,
    num(row.figure, row.unit),
    row.detail ?? '',
    row.primitive ? `${row.primitive.name}: ${num(row.primitive.value, row.primitive.unit)}` : '',
    ratioText(row.ratio),
    row.budget ?? '',
    row.met === undefined ? '' : row.met ? 'met' : 'NOT met',
    cpu(row.cpu?.server),
    cpu(row.cpu?.postgres),
    cpu(row.cpu?.loadgen),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const format = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  return [format(header), format(widths.map((w) => '-'.repeat(w))), ...lines.map(format)].join('\n');
}

function pinText(): string {
  const plan = plannedPinning();
  return plan
    ? `HTTP benchmarks: server on CPU ${plan.server}, load generator on CPU ${plan.loadgen} (taskset), Postgres unpinned; the others unpinned`
    : 'unpinned';
}

async function main(): Promise<void> {
  const options = parse(process.argv.slice(2));
  mkdirSync(RESULTS, { recursive: true });
  const resultFile = join(RESULTS, `rows.${process.pid}.jsonl`);
  rmSync(resultFile, { force: true });
  const started = new Date();
  const load = loadavg();
  const failed: string[] = [];
  for (const name of options.only) {
    console.log(`\n=== ${name} ===`);
    if ((await runBench(name, options, resultFile)) !== 0) failed.push(name);
  }
  const rows = existsSync(resultFile)
    ? readFileSync(resultFile, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as BenchRow)
    : [];
  rmSync(resultFile, { force: true });
  const machine = `${availableParallelism()} cores (${cpus()[0]?.model.trim() ?? 'unknown'}), load average ${load.map((l) => l.toFixed(1)).join(' ')} at the start; ${pinText()}`;
  console.log(`\n${started.toISOString()}, ${machine}\n`);
  console.log(table(rows));
  if (failed.length > 0) console.log(`\nfailed: ${failed.join(', ')} (see above)`);
  writeFileSync(
    join(RESULTS, 'latest.json'),
    `${JSON.stringify({ started: started.toISOString(), machine, options, failed, rows }, null, 2)}\n`,
  );
  console.log(`\nrows written to benchmarks/results/latest.json${options.cpuProf ? '; CPU profiles in benchmarks/results/profiles/' : ''}`);
  if (failed.length > 0) process.exitCode = 1;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
