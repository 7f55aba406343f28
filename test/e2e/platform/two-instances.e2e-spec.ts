import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { randomBase32 } from '@svc/ids';
import { dropDatabase } from '@svc/persistence';
import type { ReceiptDocument } from '@svc/receipts';
import {
  LoopbackReceiver,
  TEST_DATABASE_SERVER,
  TEST_NATS_URL,
  deleteTestStreams,
  http,
  testKeyEncryptionKey,
  uniqueBusPrefix,
  waitFor,
  type HttpResult,
} from '@svc/testing';
import { Client } from 'pg';
import {
  createAgent,
  createAuthority,
  dpopProof,
  grantBody,
  newAgentKey,
  requestGrant,
  type AgentKey,
  type TestApp,
} from '../oap-authorizer/support';
import { ConnectionSampler } from '../support/connection-sampler';
import { BACKEND_SERVICE_NAMES } from '@svc/config';

const ROOT = join(__dirname, '..', '..', '..');
/** The launcher and the admin CLI start from the compile cache, as `npm run admin` does (the launcher fills it for its children anyway). */
const RUN_COMPILED = join(ROOT, 'scripts', 'run-compiled.js');
const run = promisify(execFile);

/** The services in the launcher's order: instance n (0-based) of service i listens on service base + 100 + n × 10 + i (region us). */
const SERVICES = BACKEND_SERVICE_NAMES;
type Service = (typeof SERVICES)[number];
const INSTANCES = 2;
const CHECKPOINT_INTERVAL_SECONDS = 2;
const CONNECTION_LIMIT = 60;
/** Fifteen processes start at once; on a busy machine of two cores that takes a while. */
const BOOT_TIMEOUT_MS = 420_000;

/** Offsets from the port base that the launcher binds for region us: the router +1, the services +200..+216. */
const PORT_OFFSETS = [1, ...Array.from({ length: INSTANCES }, (_, n) => SERVICES.map((_service, i) => 200 + n * 10 + i)).flat()];

function canBind(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** A port base whose ports are free, below the kernel's ephemeral range (as in the local stack test). */
async function freePortBase(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt += 1) {
    const base = 10_000 + Math.floor(Math.random() * 22_000);
    if ((await Promise.all(PORT_OFFSETS.map((offset) => canBind(base + offset)))).every(Boolean)) return base;
  }
  throw new Error('no free block of ports below the ephemeral range');
}

/** `http_requests_total` of one instance for a method and route template (0 when it has none). */
function requestsServed(metrics: string, method: string, route: string): number {
  return metrics
    .split('\n')
    .filter((line) => line.startsWith('http_requests_total{') && line.includes(`method="${method}"`) && line.includes(`route="${route}"`))
    .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
}

jest.setTimeout(120_000);

/**
 * Issue 20 item 4: the distributed stack with two instances of every service (the Helm chart runs
 * two replicas behind each Service), the router taking them in turn. The concurrency guarantees the
 * monolithic tests prove inside one process hold with their requests spread over both instances
 * (each burst is checked to have reached both, from each instance's own /metrics): one grant per
 * idempotency key, a DPoP proof used once, one witnessed attestation and a monotonic sequence per
 * agent class, one decision of a quorum whose participants vote concurrently (each counted once, a
 * late vote refused, one outcome event, webhook, audit entry and receipt), a contiguous audit chain
 * that verifies, one checkpoint per interval, one webhook delivery per event, within the
 * distributed connection budget of 60.
 */
describe('the distributed stack with two instances of every service (region us)', () => {
  const tag = randomBase32(6).toLowerCase();
  const databaseUrl = `${TEST_DATABASE_SERVER}/svc_two_${tag}_us`;
  const sampler = new ConnectionSampler(`svc_two_${tag}_`);
  const receiver = new LoopbackReceiver();
  const prefix = uniqueBusPrefix();
  const stateDir = mkdtempSync(join(tmpdir(), 'svc-two-instances-'));
  const db = new Client({ connectionString: databaseUrl, application_name: 'test-two-instances' });
  let dbConnected = false;
  let portBase = 0;
  let env: NodeJS.ProcessEnv = {};
  let stack: ChildProcess | undefined;
  let output = '';
  let base = '';
  let app: TestApp;
  let key: AgentKey;
  let bootSeconds = 0;
  /** When the launcher had the database, streams and compile cache ready and started the processes. */
  let launchSeconds = 0;
  let applicationSeconds = 0;
  /** The admin CLI's run that creates the test's application, started once the database is migrated. */
  let application: Promise<{ stdout: string; stderr: string }> | undefined;
  const auth = () => ({ authorization: `Bearer ${app.token}` });
  const instance = (service: Service, n: number) => `http://127.0.0.1:${portBase + 200 + n * 10 + SERVICES.indexOf(service)}`;

  /** Requests each instance of `service` has answered on one route. */
  async function served(service: Service, method: string, route: string): Promise<number[]> {
    return Promise.all(
      Array.from({ length: INSTANCES }, async (_, n) =>
        requestsServed((await http('GET', `${instance(service, n)}/metrics`)).text, method, route),
      ),
    );
  }

  /** Runs `burst` and expects every instance of `service` to have answered some of its requests on `route`. */
  async function spread<T>(service: Service, method: string, route: string, burst: () => Promise<T>): Promise<T> {
    const before = await served(service, method, route);
    const result = await burst();
    const after = await served(service, method, route);
    const answered = after.map((count, n) => count - before[n]!);
    expect(answered.every((count) => count > 0)).toBe(true);
    return result;
  }

  beforeAll(async () => {
    await receiver.start();
    portBase = await freePortBase();
    env = {
      ...process.env,
      SVC_EMBEDDED: '',
      SVC_LOCAL_STATE_DIR: stateDir,
      SVC_INSTANCES: String(INSTANCES),
      SVC_REGIONS: 'us',
      DATABASE_URL_TEMPLATE: `${TEST_DATABASE_SERVER}/svc_two_${tag}_{region}`,
      DATABASE_CONNECTION_BUDGET: String(CONNECTION_LIMIT),
      NATS_URL: TEST_NATS_URL,
      BUS_PREFIX: prefix,
      KEY_ENCRYPTION_KEY: testKeyEncryptionKey(),
      SVC_ROUTER_PORT_BASE: String(portBase),
      SVC_SERVICE_PORT_BASE: String(portBase + 100),
      SVC_READY_TIMEOUT_MS: String(BOOT_TIMEOUT_MS),
      AUDIT_CHECKPOINT_INTERVAL_SECONDS: String(CHECKPOINT_INTERVAL_SECONDS),
      LOG_LEVEL: 'warn',
      // Codes are never mailed here: a mail server URL keeps the launcher from starting MailDev.
      SMTP_URL: 'smtp://127.0.0.1:9',
    };
    base = `http://127.0.0.1:${portBase + 1}`;
    // Sampled from before the launch: the peak covers the boot and the admin CLI too.
    await sampler.start();
    const createApplication = () =>
      run(
        process.execPath,
        [
          RUN_COMPILED,
          join(ROOT, 'tools', 'admin', 'cli.ts'),
          'create-application',
          '--region',
          'us',
          '--name',
          'two-instances',
          '--environment',
          'development',
        ],
        { cwd: ROOT, env },
      );
    const started = Date.now();
    const child = spawn(process.execPath, [RUN_COMPILED, join(ROOT, 'deploy', 'local', 'start.ts'), 'distributed'], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    stack = child;
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (launchSeconds === 0 && output.includes('Starting the distributed stack')) {
        launchSeconds = (Date.now() - started) / 1000;
        // The database is migrated by now: the application is created while the processes boot, not after.
        application = createApplication();
        application.catch(() => undefined);
      }
    });
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    await new Promise<void>((resolve, reject) => {
      const deadline = Date.now() + BOOT_TIMEOUT_MS;
      const timer = setInterval(() => {
        if (output.includes('Ready:')) {
          clearInterval(timer);
          resolve();
        } else if (Date.now() > deadline) {
          clearInterval(timer);
          reject(new Error(`the stack was not ready within ${BOOT_TIMEOUT_MS / 1000} s:\n${output}`));
        }
      }, 100);
      child.once('exit', (code) => {
        clearInterval(timer);
        reject(new Error(`stack exited (${code}):\n${output}`));
      });
    });
    bootSeconds = (Date.now() - started) / 1000;
    await db.connect();
    dbConnected = true;
    const { stdout } = await (application ?? createApplication());
    applicationSeconds = (Date.now() - started) / 1000 - bootSeconds;
    const created = JSON.parse(stdout.trim()) as { application_id: string; api_token: string };
    app = { id: created.application_id, token: created.api_token };
    key = await newAgentKey();
  }, BOOT_TIMEOUT_MS + 60_000);

  afterAll(async () => {
    // A boot that failed may leave the admin CLI running: its connections go before the database.
    await application?.catch(() => undefined);
    await sampler.stop();
    if (dbConnected) await db.end().catch(() => undefined);
    if (stack && stack.exitCode === null) {
      const exited = new Promise((resolve) => stack!.once('exit', resolve));
      stack.kill('SIGINT');
      const timer = setTimeout(() => stack!.kill('SIGKILL'), 30_000);
      await exited;
      clearTimeout(timer);
    }
    await receiver.close();
    await dropDatabase(databaseUrl).catch(() => undefined);
    await deleteTestStreams(prefix);
    rmSync(stateDir, { recursive: true, force: true });
  }, 60_000);

  it('boots two instances of each of the seven services behind one router, which takes them in turn', async () => {
    console.log(
      `two instances: processes started after ${launchSeconds.toFixed(1)} s, stack ready in ${bootSeconds.toFixed(1)} s, application ready ${applicationSeconds.toFixed(1)} s later`,
    );
    expect(output).toContain(`us  ${base}`);
    expect(output).toContain(`${INSTANCES} instances of every service`);
    for (const service of SERVICES) {
      for (let n = 0; n < INSTANCES; n += 1) expect((await http('GET', `${instance(service, n)}/readyz`)).status).toBe(200);
    }
    const me = await spread('decision-gateway', 'GET', '/api/v1/me', () =>
      Promise.all(Array.from({ length: 4 }, () => http('GET', `${base}/api/v1/me`, { headers: auth() }))),
    );
    expect(me.map((res) => res.status)).toEqual([200, 200, 200, 200]);
  });

  it('idempotency: concurrent requests with one key create one agent, whichever instance answers', async () => {
    const idempotencyKey = randomUUID();
    const name = `concurrent shopper ${tag}`;
    const answers = await spread('oap-authorizer', 'POST', '/api/v1/agents', () =>
      Promise.all(
        Array.from({ length: 8 }, () =>
          http('POST', `${base}/api/v1/agents`, { headers: { ...auth(), 'idempotency-key': idempotencyKey }, json: { name } }),
        ),
      ),
    );
    const ran = answers.filter((a) => a.status === 201 && a.headers.get('idempotent-replayed') === null);
    expect(ran).toHaveLength(1);
    for (const answer of answers.filter((a) => a !== ran[0])) {
      if (answer.status === 409)
        expect([answer.body.reason_code, answer.headers.get('retry-after')]).toEqual(['idempotency_key_in_progress', '1']);
      else expect([answer.status, answer.headers.get('idempotent-replayed'), answer.text]).toEqual([201, 'true', ran[0]!.text]);
    }
    const rows = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM oap.agents WHERE application_id = $1 AND name = $2`, [
      app.id,
      name,
    ]);
    expect(rows.rows[0]!.n).toBe(1);
  });

  it('grants: duplicates of one key make one grant among distinct requests; a DPoP proof replayed over both instances is refused but once', async () => {
    const agentId = await createAgent(base, app, { manifest: true });
    const authorityId = await createAuthority(base, app, agentId);
    const body = grantBody(agentId, key, { valid_until: new Date(Date.now() + 3_600_000).toISOString() });
    const proofs = () =>
      Promise.all(Array.from({ length: 30 }, () => dpopProof(key, 'POST', `${base}/api/v1/grants`, { now: new Date() })));
    const idempotencyKey = randomUUID();
    const all = await proofs();
    const [duplicates, distinct] = await spread('oap-authorizer', 'POST', '/api/v1/grants', () =>
      Promise.all([
        Promise.all(all.slice(0, 20).map((proof) => requestGrant(base, app, key, body, { now: new Date(), idempotencyKey, proof }))),
        Promise.all(all.slice(20).map((proof) => requestGrant(base, app, key, body, { now: new Date(), proof }))),
      ]),
    );
    const created = duplicates.filter((r) => r.status === 201);
    expect(duplicates.every((r) => r.status === 201 || r.status === 409)).toBe(true);
    expect(created.length).toBeGreaterThan(0);
    expect(new Set(created.map((r) => r.body.grant_id)).size).toBe(1);
    for (const conflict of duplicates.filter((r) => r.status === 409))
      expect(conflict.body.reason_code).toBe('idempotency_request_in_progress');
    expect(distinct.map((r) => r.status)).toEqual(Array.from({ length: 10 }, () => 201));
    const replay = await requestGrant(base, app, key, body, { now: new Date(), idempotencyKey });
    expect([replay.status, replay.body.grant_id]).toEqual([201, created[0]!.body.grant_id]);
    const grants = await db.query<{ n: number; receipts: number }>(
      `SELECT count(*)::int AS n, count(DISTINCT receipt_jti)::int AS receipts FROM oap.grants WHERE authority_id = $1`,
      [authorityId],
    );
    expect(grants.rows[0]).toEqual({ n: 11, receipts: 11 });

    const [proof] = await proofs();
    const replayed = await spread('oap-authorizer', 'POST', '/api/v1/grants', () =>
      Promise.all(Array.from({ length: 6 }, () => requestGrant(base, app, key, body, { now: new Date(), proof }))),
    );
    expect(replayed.map((r) => r.status).sort()).toEqual([201, 401, 401, 401, 401, 401]);
    for (const res of replayed.filter((r) => r.status === 401)) expect(res.body.reason_code).toBe('dpop_proof_replayed');
  });

  describe('attestations (oversight-witness)', () => {
    let engine: { token: string };
    const submit = (body: Record<string, unknown>): Promise<HttpResult> =>
      http('POST', `${base}/api/v1/oap/attestations`, { headers: { authorization: `Bearer ${engine.token}` }, json: body });
    const attestation = (agentClass: string, sequence: number, id = `eng-${tag}-${agentClass}-${sequence}`) => ({
      attestation_id: id,
      application_id: app.id,
      agent_class: agentClass,
      action_class: 'payment.initiate',
      decision: 'allow',
      decided_at: new Date(Date.now() - 30_000).toISOString(),
      sequence_number: sequence,
      legal_basis: 'contract',
      evidence_digest: 'ab'.repeat(32),
      context: { amount: '10.00', currency: 'EUR' },
      requires_human_approval: false,
    });

    beforeAll(async () => {
      const mode = await http('PATCH', `${base}/api/v1/applications/${app.id}`, { headers: auth(), json: { mode: 'oversight' } });
      expect(mode.status).toBe(200);
      const attester = await http('POST', `${base}/api/v1/trusted_attesters`, {
        headers: auth(),
        json: { name: 'engine', permissions: ['attestations:submit', 'attestations:heartbeat', 'escalations:create'] },
      });
      expect(attester.status).toBe(201);
      engine = { token: (attester.body.trusted_attester as { token: string }).token };
    });

    it('answers concurrent identical submissions with one witnessed row; every other answer replays its receipt, at once or on retry', async () => {
      const body = attestation('identical', 1);
      const answers = await spread('oversight-witness', 'POST', '/api/v1/oap/attestations', () =>
        Promise.all(Array.from({ length: 12 }, () => submit(body))),
      );
      // A request that waited its pool's acquire timeout sheds with 503 and Retry-After; its retry replays.
      const shed = answers.filter((a) => a.status === 503);
      for (const answer of shed) expect(answer.headers.get('retry-after')).not.toBeNull();
      const retried: HttpResult[] = [];
      for (let i = 0; i < shed.length; i += 1) retried.push(await submit(body));
      const settled = [...answers.filter((a) => a.status !== 503), ...retried];
      expect(settled.map((a) => a.status).sort()).toEqual([...Array<number>(11).fill(200), 201]);
      const created = settled.find((a) => a.status === 201)!;
      for (const replay of settled.filter((a) => a.status === 200)) expect(replay.body.receipt).toBe(created.body.receipt);
      const rows = await db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM oversight.attestations WHERE application_id = $1 AND attestation_key = $2`,
        [app.id, body.attestation_id],
      );
      expect(rows.rows[0]!.n).toBe(1);
    });

    it('keeps one sequence per agent class: in turn over both instances it is contiguous; racing, every accepted number follows the last', async () => {
      await spread('oversight-witness', 'POST', '/api/v1/oap/attestations', async () => {
        for (let sequence = 1; sequence <= 8; sequence += 1) {
          const res = await submit(attestation('in-turn', sequence));
          expect([res.status, res.body.attestation]).toEqual([
            201,
            expect.objectContaining({ sequence_number: sequence, sequence_gap: false }),
          ]);
        }
      });
      const racing = await spread('oversight-witness', 'POST', '/api/v1/oap/attestations', () =>
        Promise.all(Array.from({ length: 24 }, (_, i) => submit(attestation('racing', i + 1)))),
      );
      const accepted = racing
        .filter((res) => res.status === 201)
        .map((res) => res.body.attestation as { sequence_number: number; sequence_gap: boolean; expected_sequence_number: number | null })
        .sort((a, b) => a.sequence_number - b.sequence_number);
      expect(accepted.length).toBeGreaterThan(0);
      for (const refused of racing.filter((res) => res.status !== 201)) {
        if (refused.status === 503) expect(refused.headers.get('retry-after')).not.toBeNull();
        else expect([refused.status, refused.body.reason_code]).toEqual([409, 'sequence_number_not_monotonic']);
      }
      accepted.forEach((current, i) => {
        if (i === 0) return;
        const previous = accepted[i - 1]!.sequence_number;
        expect(current.sequence_number).toBeGreaterThan(previous);
        expect([current.sequence_gap, current.expected_sequence_number]).toEqual(
          current.sequence_number === previous + 1 ? [false, null] : [true, previous + 1],
        );
      });
      const stored = await db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM oversight.attestations WHERE application_id = $1 AND agent_class = 'racing'`,
        [app.id],
      );
      expect(stored.rows[0]!.n).toBe(accepted.length);
    });
  });

  it('audit: appends from both audit-chain instances (and the events of both instances of every service) keep one contiguous chain that verifies', async () => {
    const crossing = (i: number) => ({
      data_categories: ['contact_data'],
      to_country: 'DE',
      recipient: 'Support operations (eu region)',
      purpose: 'answer a support request the person opened',
      lawful_basis: 'standard_contractual_clauses',
      transfer_case: 'support_operator',
      reference: `two-instances-${i}`,
    });
    const recorded = await spread('audit-chain', 'POST', '/api/v1/transfer_register', () =>
      Promise.all(
        Array.from({ length: 20 }, (_, i) => http('POST', `${base}/api/v1/transfer_register`, { headers: auth(), json: crossing(i) })),
      ),
    );
    expect(recorded.map((res) => res.status)).toEqual(Array.from({ length: 20 }, () => 201));
    const entryIds = recorded.map((res) => res.body.audit_entry_id as string);
    const entries = await db.query<{ idx: string }>(`SELECT idx FROM audit.entries WHERE id = ANY($1)`, [entryIds]);
    expect(new Set(entries.rows.map((row) => row.idx)).size).toBe(20);
    const chain = await db.query<{ n: number; last: number }>(`SELECT count(*)::int AS n, max(idx)::int AS last FROM audit.entries`);
    expect(chain.rows[0]!.n).toBe(chain.rows[0]!.last + 1);
    const verified = await http('GET', `${base}/api/v1/audit/verify`, { headers: auth() });
    expect(verified.status).toBe(200);
    expect(verified.body).toMatchObject({ valid: true, first_broken_index: null, invalid_checkpoints: [] });
  });

  it('webhooks: consent records written through both consent-records instances reach the subscriber once each, from two webhook-dispatcher instances', async () => {
    const flow = await http('POST', `${base}/api/v1/flows`, {
      headers: auth(),
      json: {
        name: 'Signup',
        locale: 'en',
        presentation: { title: 'Stay in touch' },
        purposes: [{ key: 'newsletter', label: 'Newsletter' }],
        consent_duration: 'P1Y',
      },
    });
    expect(flow.status).toBe(201);
    expect((await http('POST', `${base}/api/v1/flows/${flow.body.id}/activate`, { headers: auth() })).status).toBe(200);
    const subscribed = await http('POST', `${base}/api/v1/applications/${app.id}/webhook_subscriptions`, {
      headers: auth(),
      json: { url: receiver.url('/granted'), events: ['consent.granted'] },
    });
    expect(subscribed.status).toBe(201);
    const records = await spread('consent-records', 'POST', '/api/v1/consent_records', () =>
      Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          http('POST', `${base}/api/v1/consent_records`, {
            headers: auth(),
            json: {
              flow_id: flow.body.id,
              subject: { email: `person-${i}@example.com`, external_id: `ext-${i}` },
              decisions: { newsletter: { decision: 'granted', default_checked: false, mandatory: false } },
              captured_at: new Date(Date.now() - 60_000).toISOString(),
              idempotency_key: `two-instances-${i}`,
            },
          }),
        ),
      ),
    );
    expect(records.map((res) => res.status)).toEqual(Array.from({ length: 20 }, () => 201));
    const recordIds = records.map((res) => res.body.id as string).sort();
    const recordOf = (delivery: { body: Record<string, unknown> }) => (delivery.body.data as { record_id: string }).record_id;
    await waitFor(() => new Set(receiver.on('/granted').map(recordOf)).size === 20 || undefined, 60_000);
    // Both dispatchers keep polling: anything delivered twice would arrive within a few of their rounds.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const deliveries = receiver.on('/granted');
    expect(deliveries.map(recordOf).sort()).toEqual(recordIds);
    expect(new Set(deliveries.map((delivery) => delivery.body.id)).size).toBe(20);
  });

  it('quorum votes: nine approvers answering twice each over both decision-gateway instances make one decision; each voter counts once, a late vote is refused, and the outcome is one event, webhook, audit entry and receipt', async () => {
    const subscribed = await http('POST', `${base}/api/v1/applications/${app.id}/webhook_subscriptions`, {
      headers: auth(),
      json: { url: receiver.url('/approval'), events: ['approval.granted', 'approval.denied', 'approval.countered'] },
    });
    expect(subscribed.status).toBe(201);
    // Six approve and three deny under a majority of nine (five yes votes): approval is reached
    // whatever order the votes arrive in, on the fifth yes, and no deny can prevent it.
    const approvers = Array.from({ length: 6 }, (_, i) => `approver-${i}`);
    const deniers = Array.from({ length: 3 }, (_, i) => `denier-${i}`);
    const minted = await http('POST', `${base}/api/v1/decisions`, {
      headers: auth(),
      json: {
        kind: 'approval',
        principal_id: 'ops-lead',
        trigger_type: 'value',
        reference: `payout-${tag}`,
        proposal: { action: 'payments:transfer', bounds: { amount: '2500.00 EUR' } },
        participants: [...approvers, ...deniers],
        quorum: { type: 'majority' },
      },
    });
    expect(minted.status).toBe(201);
    const token = minted.body.session_token as string;
    const digest = createHash('sha256').update(token).digest('hex');
    const vote = (participant: string) =>
      http('POST', `${base}/api/v1/decisions/${token}/transitions`, {
        json: { action: approvers.includes(participant) ? 'approve' : 'deny', participant_id: participant },
      });
    // Each participant's two requests leave one after the other, so the router sends them to different instances.
    const voters = [...approvers, ...deniers].flatMap((participant) => [participant, participant]);
    const answers = await spread('decision-gateway', 'POST', '/api/v1/decisions/:session_token/transitions', () =>
      Promise.all(voters.map((participant) => vote(participant))),
    );
    expect(answers.filter((res) => res.status !== 200 && res.status !== 409).map((res) => [res.status, res.text])).toEqual([]);
    const counted = voters.filter((_participant, i) => answers[i]!.status === 200);
    expect(new Set(counted).size).toBe(counted.length);
    expect(counted.filter((participant) => approvers.includes(participant))).toHaveLength(5);
    const decided = answers.filter((res) => res.status === 200 && res.body.exchange_token !== undefined);
    expect(decided.map((res) => [res.body.status, res.body.allowed_actions])).toEqual([['approved', []]]);
    expect(answers.filter((res) => res.status === 200 && res !== decided[0]).every((res) => res.body.status === 'pending')).toBe(true);
    answers.forEach((res, i) => {
      if (res.status !== 409) return;
      // A second answer of a counted voter while the decision was open, or any answer after it.
      if (res.body.reason_code === 'already_voted')
        expect([counted.includes(voters[i]!), res.body.detail]).toEqual([true, { participant_id: voters[i] }]);
      else
        expect([res.body.reason_code, res.body.detail]).toEqual([
          'transition_not_allowed',
          expect.objectContaining({ status: 'approved' }),
        ]);
    });
    const refusals = (code: string) => answers.filter((res) => res.body.reason_code === code).length;
    console.log(
      `two instances: ${voters.length} votes, ${counted.length} counted (5 yes, ${counted.length - 5} no), ${refusals('already_voted')} already_voted, ${refusals('transition_not_allowed')} after the decision`,
    );
    const stored = await db.query<{ participant_id: string; vote: string }>(
      `SELECT participant_id, vote FROM gateway.decision_votes WHERE token_sha256 = $1 ORDER BY participant_id`,
      [digest],
    );
    expect(stored.rows.map((row) => row.participant_id)).toEqual([...counted].sort());
    expect(stored.rows.every((row) => row.vote === (approvers.includes(row.participant_id) ? 'yes' : 'no'))).toBe(true);

    const late = await vote(approvers.find((participant) => !counted.includes(participant))!);
    expect([late.status, late.body.reason_code, late.body.detail]).toEqual([
      409,
      'transition_not_allowed',
      expect.objectContaining({ status: 'approved' }),
    ]);
    const state = await http('GET', `${base}/api/v1/decisions/${token}/state`);
    expect([state.status, state.body.status, state.body.quorum]).toEqual([
      200,
      'approved',
      { type: 'majority', required: 5, participants: 9 },
    ]);

    // One outcome event left the gateway's outbox; it reached the subscriber, the chain and the receipts once each.
    const events = await db.query<{ id: string; event_type: string }>(
      `SELECT id, event_type FROM gateway.outbox WHERE event_type LIKE 'approval.%'`,
    );
    expect(events.rows.map((row) => row.event_type)).toEqual(['approval.granted']);
    const eventId = events.rows[0]!.id;
    await waitFor(() => receiver.on('/approval').length > 0 || undefined, 60_000);
    const denials = counted.length - 5;
    const receipt = await waitFor(async () => {
      const res = await http('GET', `${base}/api/v1/approval_receipts/${token}`, { headers: auth() });
      return res.status === 200 ? res : undefined;
    }, 60_000);
    expect(receipt.headers.get('x-svc-receipt-status')).toBe('approved');
    expect((receipt.body as unknown as ReceiptDocument).event).toEqual([expect.objectContaining({ event_state: 'approval granted' })]);
    const audited = await waitFor(async () => {
      const { rows } = await db.query<{ entry_type: string; source_event_id: string }>(
        `SELECT entry_type, source_event_id FROM audit.entries WHERE entry_type LIKE 'approval.%'`,
      );
      return rows.length > 0 ? rows : undefined;
    }, 60_000);
    // Both dispatchers and both audit-chain and receipts consumers keep running: a duplicate would arrive within a few rounds.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const deliveries = receiver.on('/approval');
    expect(deliveries.map((delivery) => [delivery.body.event, delivery.body.id])).toEqual([['approval.granted', eventId]]);
    expect(deliveries[0]!.body.data).toMatchObject({ session_token: token, outcome: 'approved', required: 5, approvals: 5, denials });
    expect(audited).toEqual([{ entry_type: 'approval.granted', source_event_id: eventId }]);
    const frozen = await db.query<{ record_id: string }>(`SELECT record_id FROM receipts.frozen_receipts WHERE record_id LIKE 'apr\\_%'`);
    expect(frozen.rows).toEqual([{ record_id: `apr_${digest}` }]);
  });

  it(`checkpoints: both audit-chain instances schedule them every ${CHECKPOINT_INTERVAL_SECONDS} s, and exactly one is made per interval`, async () => {
    // Long enough after boot for several intervals, whatever the order the tests above took.
    await waitFor(
      async () => ((await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM audit.checkpoints`)).rows[0]!.n >= 4 ? true : undefined),
      30_000,
      500,
    );
    const { rows } = await db.query<{ seq: string; created_at: Date; tree_size: string }>(
      `SELECT seq, created_at, tree_size FROM audit.checkpoints ORDER BY seq`,
    );
    const gaps = rows.slice(1).map((row, i) => row.created_at.getTime() - rows[i]!.created_at.getTime());
    console.log(`two instances: ${rows.length} checkpoints, gaps ${Math.min(...gaps)}–${Math.max(...gaps)} ms`);
    expect(rows.map((row) => Number(row.seq))).toEqual(rows.map((_row, i) => i + 1));
    for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(CHECKPOINT_INTERVAL_SECONDS * 1000);
    rows.slice(1).forEach((row, i) => expect(Number(row.tree_size)).toBeGreaterThanOrEqual(Number(rows[i]!.tree_size)));
  });

  it(`keeps the stack of ${SERVICES.length * INSTANCES + 1} processes within ${CONNECTION_LIMIT} Postgres connections at its peak`, async () => {
    await sampler.sample();
    console.log(`two instances: connection peak ${sampler.peak} of ${CONNECTION_LIMIT} ${JSON.stringify(sampler.peakByApplication)}`);
    expect(sampler.peak).toBeGreaterThan(0);
    expect(sampler.peak).toBeLessThanOrEqual(CONNECTION_LIMIT);
    expect(output).toContain(`Postgres connections: at most ${CONNECTION_LIMIT}`);
  });
});
