/**
 * Soak: mixed traffic at a fixed fraction of measured capacity for SOAK_MINUTES (default 10)
 * against one monolithic region running in a process of its own, printing per minute the requests,
 * errors and p50/p99 of each kind, the server's RSS and event-loop delay p99, the outbox backlog
 * and the bus consumer lag, then a verdict (exit code 1 when a check fails).
 *
 *   npm run soak     (env: SOAK_MINUTES=10, SOAK_FRACTION=0.5, SOAK_CALIBRATION_SECONDS=20,
 *                     SOAK_CALIBRATION_CONCURRENCY=32, SOAK_IMPORT_SECONDS=10, SOAK_IMPORT_ROWS,
 *                     SOAK_PEOPLE=20000, SOAK_AGENTS=16, SOAK_POOL=8, SOAK_MAX_IN_FLIGHT=256)
 *
 * The mix, in a fixed cycle of ten requests: 4 grants (`POST /api/v1/grants` with a fresh DPoP
 * proof each), 4 consent records (`POST /api/v1/consent_records`, people cycling through
 * SOAK_PEOPLE so most are later records), 2 consent sessions (`POST /api/v1/decisions`). Beside
 * it, one import every SOAK_IMPORT_SECONDS (`POST /api/v1/consent_records/imports`, rows at a
 * quarter of the offered request rate unless SOAK_IMPORT_ROWS says), and every `consent.granted`
 * event of both is delivered as a webhook to a loopback receiver.
 *
 * Capacity: the mix in a closed loop (SOAK_CALIBRATION_CONCURRENCY callers) for
 * SOAK_CALIBRATION_SECONDS after a 5 s warm-up, then the time its webhook, outbox and consumer
 * backlogs take to drain: the successful requests over the calibration plus the drain is the
 * capacity the region sustains with its asynchronous work done (answering alone is faster, and a
 * soak offered half of that outran the consumers: their lag grew every minute). The soak then
 * offers SOAK_FRACTION of it open-loop (requests start on schedule, whatever the answers), so
 * latency is not hidden by a slower server.
 *
 * Server figures come from the region's own `GET /metrics`, scraped every 10 s (prom-client's
 * `process_resident_memory_bytes`, `nodejs_eventloop_lag_p99_seconds` — perf_hooks
 * monitorEventLoopDelay, reset at every scrape, so each scrape is the p99 of its 10 s — and the
 * platform's `outbox_unpublished_events` and `bus_consumer_lag_messages`). Uses a database and bus
 * prefix of its own on the local Postgres and NATS, dropped at the end. Once the load stops, the
 * backlogs must drain and every record written must have brought exactly one `consent.granted`
 * webhook (by its event id).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  createTestDatabase,
  deleteTestStreams,
  freePort,
  LoopbackReceiver,
  testEnv,
  uniqueBusPrefix,
  type ReceivedWebhook,
} from '@svc/testing';
import { Pool } from 'undici';
import { runClosedLoop, statusLine, type Shot } from '../support/closed-loop';
import { dpopProof, grantBody, seedGrantAgents, type GrantAgent } from '../support/grant-agents';
import { fmt } from '../support/report';
import type { SoakServerReady } from './server';
import {
  DEFAULT_THRESHOLDS,
  REQUEST_KINDS,
  percentile,
  rssSlopeMiBPerMinute,
  serverSample,
  summarizeMinute,
  verdict,
  type MinuteSummary,
  type RequestKind,
  type ServerSample,
} from './stats';

const MINUTES = Number(process.env.SOAK_MINUTES ?? 10);
const FRACTION = Number(process.env.SOAK_FRACTION ?? 0.5);
const CALIBRATION_SECONDS = Number(process.env.SOAK_CALIBRATION_SECONDS ?? 20);
const CALIBRATION_CONCURRENCY = Number(process.env.SOAK_CALIBRATION_CONCURRENCY ?? 32);
const IMPORT_SECONDS = Number(process.env.SOAK_IMPORT_SECONDS ?? 10);
/** Rows per import; by default a quarter of the offered request rate (10 to 5,000), 50 during calibration. */
const IMPORT_ROWS = process.env.SOAK_IMPORT_ROWS ? Number(process.env.SOAK_IMPORT_ROWS) : undefined;
const CALIBRATION_IMPORT_ROWS = 50;
const PEOPLE = Number(process.env.SOAK_PEOPLE ?? 20_000);
const AGENTS = Number(process.env.SOAK_AGENTS ?? 16);
const POOL = process.env.SOAK_POOL ?? '8';
const MAX_IN_FLIGHT = Number(process.env.SOAK_MAX_IN_FLIGHT ?? 256);
const SCRAPE_SECONDS = 10;
/** Backlog at most this (outbox rows, consumer messages) counts as drained. */
const DRAINED_AT = 10;
const DRAIN_TIMEOUT_MS = 180_000;
/** The request mix, one cycle of ten. */
const MIX: ReadonlyArray<Exclude<RequestKind, 'imports'>> = [
  'grants',
  'records',
  'grants',
  'records',
  'sessions',
  'grants',
  'records',
  'grants',
  'records',
  'sessions',
];
const EXPECTED: Record<RequestKind, number> = { grants: 201, records: 201, sessions: 201, imports: 202 };
const RUN_TS = join(__dirname, '..', '..', 'scripts', 'run-ts.js');

const out = (line = ''): void => void process.stdout.write(`${line}\n`);
const ms = (n: number): string => (Number.isFinite(n) ? n.toFixed(1) : 'n/a');
const mib = (bytes: number): string => (bytes / 1_048_576).toFixed(1);

/** Starts server.ts as a child process and waits for its applications. */
async function startServer(env: Record<string, string>): Promise<{ child: ChildProcess; ready: SoakServerReady }> {
  const child = spawn(process.execPath, [RUN_TS, join(__dirname, 'server.ts')], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const ready = await new Promise<SoakServerReady>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the soak server did not start within 180 s')), 180_000);
    child.once('message', (message: SoakServerReady) => {
      clearTimeout(timer);
      resolve(message);
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the soak server exited with code ${code} before it answered`));
    });
  });
  return { child, ready };
}

async function stopServer(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  if (child.connected) child.disconnect();
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  await exited;
  clearTimeout(timer);
}

async function main(): Promise<void> {
  const database = await createTestDatabase('soak');
  const prefix = uniqueBusPrefix();
  const receiver = await new LoopbackReceiver(false).start();
  let server: ChildProcess | undefined;
  let pool: Pool | undefined;
  try {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const started = await startServer(
      testEnv({
        REGION: 'us',
        DATABASE_URL: database.url,
        BUS_PREFIX: prefix,
        HTTP_PORT: String(port),
        PUBLIC_BASE_URL: base,
        REGION_URLS: `us=${base},eu=http://127.0.0.1:1,ap=http://127.0.0.1:2`,
        DATABASE_POOL_SIZE: POOL,
        SERVICE_NAME: 'soak',
        LOG_LEVEL: 'warn',
      }),
    );
    server = started.child;
    const [mixApp, importApp] = started.ready.applications as [SoakServerReady['applications'][0], SoakServerReady['applications'][0]];
    const connections = new Pool(base, { connections: 64, pipelining: 1 });
    pool = connections;

    const send = async (
      method: 'GET' | 'POST',
      path: string,
      token: string,
      body?: string,
      extra: Record<string, string> = {},
    ): Promise<{ status: number; text: string }> => {
      const headers: Record<string, string> = { authorization: `Bearer ${token}`, ...extra };
      if (body !== undefined) headers['content-type'] = 'application/json';
      const res = await connections.request({ method, path, headers, body });
      return { status: res.statusCode, text: await res.body.text() };
    };
    const postAs = (token: string) => async (path: string, body: unknown) => {
      const res = await send('POST', path, token, JSON.stringify(body));
      return { status: res.status, body: (res.text ? JSON.parse(res.text) : {}) as Record<string, unknown> };
    };
    const scrape = async (): Promise<ServerSample> => {
      const res = await connections.request({ method: 'GET', path: '/metrics' });
      return serverSample(await res.body.text());
    };

    // Data: a flow per application, webhook subscriptions to the loopback receiver, agents with authorities.
    const flowOf = async (token: string): Promise<string> => {
      const post = postAs(token);
      const flow = await post('/api/v1/flows', {
        name: 'Soak',
        locale: 'en',
        presentation: { title: 'Soak' },
        purposes: [
          { key: 'newsletter', label: 'Newsletter' },
          { key: 'offers', label: 'Offers' },
        ],
        consent_duration: 'P1Y',
      });
      const activated = await post(`/api/v1/flows/${flow.body.id as string}/activate`, {});
      if (flow.status !== 201 || activated.status !== 200)
        throw new Error(`flow setup failed: ${flow.status}/${activated.status} ${JSON.stringify(activated.body)}`);
      return flow.body.id as string;
    };
    const flowId = await flowOf(mixApp.apiToken);
    const importFlowId = await flowOf(importApp.apiToken);
    for (const [app, path] of [
      [mixApp, '/hooks/api'],
      [importApp, '/hooks/imports'],
    ] as const) {
      const subscription = await postAs(app.apiToken)(`/api/v1/applications/${app.id}/webhook_subscriptions`, {
        url: receiver.url(path),
        events: ['consent.granted'],
      });
      if (subscription.status !== 201)
        throw new Error(`webhook subscription failed: ${subscription.status} ${JSON.stringify(subscription.body)}`);
    }
    const agents: GrantAgent[] = await seedGrantAgents(postAs(mixApp.apiToken), AGENTS);
    const grantBodies = agents.map((agent) => grantBody(agent, new Date(Date.now() + 4 * 3_600_000)));

    // One request of each kind, timed from send to the end of the answer; 0 when the connection failed.
    const run = randomBytes(4).toString('hex');
    let sequence = 0;
    const timed = async (request: () => Promise<{ status: number }>): Promise<Shot> => {
      const t0 = performance.now();
      try {
        const { status } = await request();
        return { status, ms: performance.now() - t0 };
      } catch {
        return { status: 0, ms: performance.now() - t0 };
      }
    };
    const imports: string[] = [];
    let importRows = IMPORT_ROWS ?? CALIBRATION_IMPORT_ROWS;
    const fire: Record<RequestKind, () => Promise<Shot>> = {
      grants: async () => {
        const i = sequence++;
        const agent = agents[i % agents.length]!;
        const proof = await dpopProof(agent, 'POST', `${base}/api/v1/grants`);
        return timed(() =>
          send('POST', '/api/v1/grants', mixApp.apiToken, grantBodies[i % agents.length], {
            dpop: proof,
            'idempotency-key': `soak-${run}-${i}`,
          }),
        );
      },
      records: () => {
        const i = sequence++;
        const person = i % PEOPLE;
        const body = JSON.stringify({
          flow_id: flowId,
          subject: { email: `person${person}@example.com`, external_id: `p${person}` },
          decisions: { newsletter: { decision: i % 3 === 0 ? 'declined' : 'granted' }, offers: { decision: 'granted' } },
          captured_at: new Date().toISOString(),
          idempotency_key: `soak-${run}-${i}`,
        });
        return timed(() => send('POST', '/api/v1/consent_records', mixApp.apiToken, body));
      },
      sessions: () => {
        const i = sequence++;
        return timed(() =>
          send(
            'POST',
            '/api/v1/decisions',
            mixApp.apiToken,
            JSON.stringify({ kind: 'consent', flow_id: flowId, principal_id: `user-${i % PEOPLE}` }),
          ),
        );
      },
      imports: () => {
        const i = sequence++;
        const capturedAt = new Date().toISOString();
        const records = Array.from({ length: importRows }, (_, r) => ({
          subject: { email: `imported${i}-${r}@example.com`, external_id: `i${i}-${r}` },
          decisions: { newsletter: { decision: 'granted' }, offers: { decision: r % 2 === 0 ? 'granted' : 'declined' } },
          captured_at: capturedAt,
          idempotency_key: `soak-${run}-${i}-${r}`,
        }));
        return timed(async () => {
          const res = await send(
            'POST',
            '/api/v1/consent_records/imports',
            importApp.apiToken,
            JSON.stringify({ flow_id: importFlowId, records }),
          );
          if (res.status === 202) imports.push((JSON.parse(res.text) as { id: string }).id);
          return res;
        });
      },
    };
    /** Import jobs still running; completed ones add their failed rows to `importRowsFailed`. */
    let importRowsFailed = 0;
    const pollImports = async (): Promise<number> => {
      for (const id of imports.splice(0)) {
        const res = await send('GET', `/api/v1/consent_records/imports/${id}?limit=1`, importApp.apiToken);
        const job = JSON.parse(res.text) as { status?: string; counts?: { failed: number } };
        if (res.status === 200 && job.status === 'completed') importRowsFailed += job.counts?.failed ?? 0;
        else if (res.status === 200 && job.status !== 'failed') imports.push(id);
        else importRowsFailed += job.counts?.failed ?? 1;
      }
      return imports.length;
    };
    const waitDrained = async (timeoutMs: number): Promise<{ drained: boolean; sample: ServerSample; seconds: number }> => {
      const t0 = performance.now();
      let sample = await scrape();
      while (sample.outbox > DRAINED_AT || sample.consumerLag > DRAINED_AT || (await pollImports()) > 0) {
        if (performance.now() - t0 > timeoutMs) return { drained: false, sample, seconds: (performance.now() - t0) / 1_000 };
        await sleep(1_000);
        sample = await scrape();
      }
      return { drained: true, sample, seconds: (performance.now() - t0) / 1_000 };
    };
    const startImports = (send: () => void): (() => void) => {
      const timer = setInterval(send, IMPORT_SECONDS * 1_000);
      return () => clearInterval(timer);
    };

    // Calibration: the mix in a closed loop; its rate of successes is the capacity.
    out(
      `soak: ${MINUTES} min at ${FRACTION * 100}% of measured capacity; machine ${cpus().length} cores, load average ${loadavg()
        .map((n) => n.toFixed(2))
        .join(' ')} at start`,
    );
    out(
      `  server: one monolithic region in its own process, DB pool ${POOL}; mix per 10 requests: 4 grants (DPoP), 4 consent records, 2 consent sessions; 1 import every ${IMPORT_SECONDS} s; consent.granted webhooks to a loopback receiver`,
    );
    let mixIndex = 0;
    const fireMix = (): Promise<Shot> => fire[MIX[mixIndex++ % MIX.length]!]();
    const stopCalibrationImports = startImports(() => void fire.imports());
    await runClosedLoop({ concurrency: CALIBRATION_CONCURRENCY, seconds: 5, successStatus: 201, fire: fireMix });
    const calibration = await runClosedLoop({
      concurrency: CALIBRATION_CONCURRENCY,
      seconds: CALIBRATION_SECONDS,
      successStatus: 201,
      fire: fireMix,
    });
    stopCalibrationImports();
    out(
      `  calibration: ${CALIBRATION_SECONDS} s closed loop, ${CALIBRATION_CONCURRENCY} callers: ${fmt(calibration.rate)} requests/s (p50 ${ms(calibration.percentile(50))} ms, p99 ${ms(calibration.percentile(99))} ms; ${statusLine(calibration.statuses)})`,
    );
    const calibrationDrain = await waitDrained(DRAIN_TIMEOUT_MS);
    out(
      `  calibration backlog drained: ${calibrationDrain.drained ? 'yes' : 'NO'} after ${calibrationDrain.seconds.toFixed(0)} s (outbox ${calibrationDrain.sample.outbox}, consumer lag ${calibrationDrain.sample.consumerLag})`,
    );
    const sustained = (calibration.rate * CALIBRATION_SECONDS) / (CALIBRATION_SECONDS + calibrationDrain.seconds);
    const rate = sustained * FRACTION;
    importRows = IMPORT_ROWS ?? Math.min(5_000, Math.max(10, Math.round((rate * IMPORT_SECONDS) / 4)));
    out(`  capacity with the backlog drained: ${fmt(sustained)} requests/s`);
    out(
      `  offered: ${fmt(rate)} requests/s (${REQUEST_KINDS.filter((k) => k !== 'imports')
        .map((k) => `${k} ${fmt((rate * MIX.filter((m) => m === k).length) / MIX.length)}/s`)
        .join(', ')}) + 1 import of ${fmt(importRows)} rows every ${IMPORT_SECONDS} s`,
    );
    out();

    // The soak: open loop at `rate`, results counted in the minute the request started.
    const minuteShots = Array.from(
      { length: MINUTES },
      () =>
        Object.fromEntries(REQUEST_KINDS.map((k) => [k, { latencies: [] as number[], errors: 0 }])) as Record<
          RequestKind,
          { latencies: number[]; errors: number }
        >,
    );
    const minuteSamples: ServerSample[][] = Array.from({ length: MINUTES }, () => []);
    const webhookMinutes = Array.from({ length: MINUTES }, () => ({ api: [] as number[], imports: 0 }));
    const minutes: MinuteSummary[] = [];
    let shed = 0;
    let inFlight = 0;
    const soakStart = performance.now();
    const soakStartEpoch = Date.now();
    const soakEnd = soakStart + MINUTES * 60_000;
    const minuteAt = (t: number): number => Math.min(MINUTES - 1, Math.floor((t - soakStart) / 60_000));
    /** Distinct record events received since the soak started, and repeats of an event seen before. */
    const recordEvents = new Set<string>();
    let duplicates = 0;
    receiver.onRequest = (request: ReceivedWebhook) => {
      if (request.receivedAt < soakStartEpoch) return;
      const slot = webhookMinutes[Math.min(MINUTES - 1, Math.floor((request.receivedAt - soakStartEpoch) / 60_000))]!;
      if (request.path === '/hooks/api') {
        const id = String(request.headers['x-svc-event-id']);
        if (recordEvents.has(id)) duplicates += 1;
        recordEvents.add(id);
        slot.api.push(request.receivedAt - Date.parse(request.body.created_at as string));
      } else slot.imports += 1;
    };
    const launch = (kind: RequestKind): void => {
      const startedAt = performance.now();
      if (inFlight >= MAX_IN_FLIGHT) {
        shed += 1;
        return;
      }
      inFlight += 1;
      void fire[kind]().then((shot) => {
        inFlight -= 1;
        const slot = minuteShots[minuteAt(startedAt)]![kind];
        if (shot.status === EXPECTED[kind]) slot.latencies.push(shot.ms);
        else slot.errors += 1;
      });
    };
    out('min  kind      requests  errors    p50 ms    p99 ms');
    const printMinute = async (m: number): Promise<void> => {
      const pending = await pollImports();
      const summary = summarizeMinute(m + 1, minuteShots[m]!, minuteSamples[m]!);
      minutes.push(summary);
      for (const kind of REQUEST_KINDS) {
        const k = summary.kinds[kind];
        out(
          `${String(m + 1).padStart(3)}  ${kind.padEnd(8)} ${fmt(k.requests).padStart(9)} ${String(k.errors).padStart(7)} ${ms(k.p50).padStart(9)} ${ms(k.p99).padStart(9)}`,
        );
      }
      const hooks = webhookMinutes[m]!;
      out(
        `     webhooks  ${fmt(hooks.api.length + hooks.imports)} delivered (${fmt(hooks.api.length)} of records, ${fmt(hooks.imports)} of imports); record event → receipt p50 ${ms(percentile(hooks.api, 50))} ms, p99 ${ms(percentile(hooks.api, 99))} ms`,
      );
      out(
        `     server    RSS ${mib(summary.rssBytes)} MiB, event-loop lag p99 ${ms(summary.lagP99Ms)} ms; outbox backlog max ${summary.outboxMax}, consumer lag max ${summary.consumerLagMax}; imports running ${pending}`,
      );
    };
    const scrapes: Array<Promise<void>> = [];
    const scrapeTimer = setInterval(() => {
      const m = minuteAt(performance.now() - 1_000);
      scrapes.push(
        scrape().then(
          (sample) => void minuteSamples[m]!.push(sample),
          () => undefined,
        ),
      );
    }, SCRAPE_SECONDS * 1_000);
    const stopImports = startImports(() => launch('imports'));
    let launched = 0;
    let printed = 0;
    while (performance.now() < soakEnd) {
      const now = performance.now();
      const due = Math.floor(((now - soakStart) / 1_000) * rate);
      while (launched < due) launch(MIX[launched++ % MIX.length]!);
      // A minute is printed 2 s after it ended, once its requests and its last scrape are in.
      if (printed < minuteAt(now) && now - soakStart >= printed * 60_000 + 62_000) await printMinute(printed++);
      await sleep(5);
    }
    stopImports();
    clearInterval(scrapeTimer);
    while (inFlight > 0) await sleep(10);
    await Promise.all(scrapes);
    minuteSamples[MINUTES - 1]!.push(await scrape());
    while (printed < MINUTES) await printMinute(printed++);

    const drain = await waitDrained(DRAIN_TIMEOUT_MS);
    // Every record grants `offers`, so each one written in the soak owes one consent.granted webhook.
    const recordsWritten = minuteShots.reduce((sum, m) => sum + m.records.latencies.length, 0);
    for (const t0 = performance.now(); recordEvents.size < recordsWritten && performance.now() - t0 < DRAIN_TIMEOUT_MS;) await sleep(500);
    out();
    out(
      `after the load stopped: outbox ${drain.sample.outbox}, consumer lag ${drain.sample.consumerLag}, imports running ${imports.length}; ${drain.drained ? `drained (≤ ${DRAINED_AT}) in ${drain.seconds.toFixed(0)} s` : `NOT drained within ${DRAIN_TIMEOUT_MS / 1_000} s`}`,
    );
    out(`RSS trend minutes 2..${MINUTES}: ${ms(rssSlopeMiBPerMinute(minutes))} MiB/min`);
    const checks = verdict(
      minutes,
      { shed, importRowsFailed, drained: drain.drained, webhooks: { expected: recordsWritten, delivered: recordEvents.size, duplicates } },
      DEFAULT_THRESHOLDS,
    );
    out('verdict:');
    for (const check of checks) out(`  ${check.pass ? 'PASS' : 'FAIL'}  ${check.name}: ${check.detail}`);
    const pass = checks.every((c) => c.pass);
    out(pass ? 'soak PASSED' : 'soak FAILED');
    process.exitCode = pass ? 0 : 1;
  } finally {
    await pool?.close();
    if (server) await stopServer(server);
    await receiver.close();
    await database.drop();
    await deleteTestStreams(prefix);
  }
}

main().then(
  () => process.exit(process.exitCode ?? 0),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
