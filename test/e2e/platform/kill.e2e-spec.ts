import { SystemClock, type PlatformConfig } from '@svc/config';
import { isAuditedEventType } from '@svc/contracts';
import { ApplicationsRepository, CreateApplication, CreateApplicationCommand, GATEWAY_SCHEMA } from '@svc/decision-gateway';
import { OutboxWriter, createDataSource } from '@svc/persistence';
import { LoopbackReceiver, http, waitFor, type HttpResult } from '@svc/testing';
import type { DataSource } from 'typeorm';
import { FaultHarness, type Death } from '../support/fault-harness';
import { activeNewsletterFlow } from './outage-support';
import {
  bearer,
  createAgent,
  createAuthority,
  dpopProof,
  grantBody,
  newAgentKey,
  type AgentKey,
  type TestApp,
} from '../oap-authorizer/support';

/** Writes of each workload; the issue's figure (1,000) unless told otherwise. */
const ITEMS = Number(process.env.SVC_KILL_TEST_ITEMS ?? 1_000);
/** Kills of the region process while the workloads run (at random times and at armed fault points). */
const KILLS = Number(process.env.SVC_KILL_TEST_KILLS ?? 22);
/** An in-flight Idempotency-Key blocks its retries for at most this long (`IDEMPOTENCY_LOCK_MS`). */
const LOCK_MS = 30_000;
/** Agents (each with its authority) the grants are spread over. */
const AGENTS = 4;
/** Requests each workload keeps in flight, and the most it starts per second. */
const CONCURRENCY = 8;
const RATE_PER_SECOND = 40;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * What each process is armed with, in turn: every named fault point (`name#N`: killed on its Nth
 * pass; `name@P`: with probability P at each pass), and processes armed with nothing, which the
 * test kills at a random moment. The first process (the setup's) is armed with nothing.
 */
function armingOf(incarnation: number): string | undefined {
  const pass = 1 + Math.floor(Math.random() * 8);
  const schedule = [
    undefined,
    `grant.after-commit#${pass}`,
    `record.after-commit#${pass}`,
    `outbox.after-publish#${pass}`,
    'consumer.after-effect@0.02',
    `webhook.after-2xx#${pass}`,
    undefined,
    `idempotency.after-claim#${1 + (pass % 3)}`,
    `idempotency.after-commit#${1 + (pass % 3)}`,
  ];
  return incarnation === 1 ? undefined : schedule[(incarnation - 2) % schedule.length];
}

/** "This key's request is still being processed": the grants' own store, and the platform's. */
const IN_PROGRESS = ['idempotency_request_in_progress', 'idempotency_key_in_progress'];

function inProgress(res: HttpResult | undefined): boolean {
  return res?.status === 409 && IN_PROGRESS.includes(String(res.body?.reason_code));
}

/** The answer a client takes as "not done yet, ask again with the same key". */
function retryable(res: HttpResult | undefined): boolean {
  return !res || res.status >= 500 || inProgress(res);
}

interface Item {
  /** The id the acknowledgement names (the grant's, or the record's). */
  id?: string;
  attempts: number;
  /**
   * The longest time from the end of an attempt that reached the region and got no final answer (it
   * died with the process, or answered 5xx when the database was cut under it: the one that may hold
   * the key's claim, made before that end) to sending a request the key answered "in progress", ms:
   * under the 30 s lock, if no key is stuck.
   */
  inProgressMs: number;
  /** When the latest attempt that reached the region but got no final answer (lost connection, or a 5xx) ended. */
  lostAttemptAt?: number;
  failure?: string;
  startedAt?: number;
  doneAt?: number;
  /** What the last attempt got: a status, or the connection error. */
  last?: string;
  /** The write was applied but its answer was lost (a kill between its commit and the stored answer): the reason code a retry got. */
  answerLost?: string;
}

/**
 * Writes `count` items, each retried with its own unchanging idempotency key until it has a final
 * answer (2xx, or one of `answerLostCodes` on a retry), through connection errors, 5xx and "in
 * progress" answers. Items are released in tranches as the kills go on (`release`), so the writes of
 * every tranche meet a kill.
 */
class Workload {
  readonly items: Item[];
  released = 0;
  private nextStart = 0;
  private nextIndex = 0;
  /** Items told "in progress", with when to ask again; a worker takes a due one before a new one. */
  private readonly deferred: Array<{ index: number; due: number }> = [];

  constructor(
    readonly name: string,
    count: number,
    private readonly send: (index: number) => Promise<HttpResult>,
    private readonly idOf: (res: HttpResult) => string,
    /** Whether item `index` may be written yet (e.g. once what it changes exists). */
    private readonly writable: (index: number) => boolean = () => true,
    /** The reason codes of a retry's answer meaning "applied, but the answer is lost" (a final answer, not a failure). */
    private readonly answerLostCodes: readonly string[] = [],
  ) {
    this.items = Array.from({ length: count }, () => ({ attempts: 0, inProgressMs: 0 }));
  }

  get acknowledged(): number {
    return this.items.filter((item) => item.id !== undefined).length;
  }

  /** Items applied whose answer was lost, by the reason code their retry got. */
  get answersLost(): Record<string, number> {
    const lost: Record<string, number> = {};
    for (const item of this.items) if (item.answerLost) lost[item.answerLost] = (lost[item.answerLost] ?? 0) + 1;
    return lost;
  }

  get requests(): number {
    return this.items.reduce((sum, item) => sum + item.attempts, 0);
  }

  get failures(): string[] {
    return this.items.flatMap((item, index) => (item.failure ? [`${this.name} ${index}: ${item.failure}`] : []));
  }

  /** The unfinished item started longest ago: `index (attempts, age, last answer)`. */
  oldest(): string {
    const now = Date.now();
    const index = this.items.findIndex((item, i) => i < this.nextIndex && item.doneAt === undefined);
    if (index < 0) return 'none';
    const item = this.items[index]!;
    return `${index} (${item.attempts} attempts, ${now - item.startedAt!} ms, last ${item.last})`;
  }

  /** The longest time from an item's first attempt to its final answer, ms. */
  get slowest(): number {
    return Math.max(0, ...this.items.map((item) => (item.doneAt ?? 0) - (item.startedAt ?? 0)));
  }

  /** True while some released item is not acknowledged. */
  get inFlight(): boolean {
    return this.items.slice(0, this.nextIndex).some((item) => item.id === undefined && !item.failure && !item.answerLost);
  }

  release(upTo: number): void {
    this.released = Math.max(this.released, Math.min(upTo, this.items.length));
  }

  async run(): Promise<void> {
    await Promise.all(Array.from({ length: CONCURRENCY }, () => this.worker()));
  }

  private async worker(): Promise<void> {
    for (;;) {
      const now = Date.now();
      const due = this.deferred.findIndex((deferred) => deferred.due <= now);
      if (due >= 0) {
        const index = this.deferred.splice(due, 1)[0]!.index;
        await this.write(index);
        continue;
      }
      if (this.nextIndex >= this.items.length) {
        if (this.deferred.length === 0) return;
        await sleep(50);
        continue;
      }
      if (this.nextIndex >= this.released || !this.writable(this.nextIndex)) {
        await sleep(50);
        continue;
      }
      if (now < this.nextStart) {
        await sleep(this.nextStart - now);
        continue;
      }
      this.nextStart = Math.max(now, this.nextStart) + 1000 / RATE_PER_SECOND;
      const index = this.nextIndex++;
      this.items[index]!.startedAt = now;
      await this.write(index);
    }
  }

  /**
   * Sends item `index` until it has a final answer, retrying at once (after a short pause) through
   * connection errors and 5xx; an "in progress" answer defers it by a second (its Retry-After) and
   * frees the worker for other items, as a client with more than one write to make would.
   */
  private async write(index: number): Promise<void> {
    const item = this.items[index]!;
    for (;;) {
      item.attempts += 1;
      const sentAt = Date.now();
      const res = await this.send(index).catch((error: unknown) => {
        const cause = (error as { cause?: { code?: string } }).cause?.code;
        item.last = `${error instanceof Error ? error.message : String(error)} (${cause})`;
        // Refused: the process was down and never saw it. Anything else: it may have claimed the key and died.
        if (cause !== 'ECONNREFUSED') item.lostAttemptAt = Date.now();
        return undefined;
      });
      if (res) item.last = `${res.status} ${String(res.body?.reason_code ?? '')}`;
      if (inProgress(res)) {
        item.inProgressMs = Math.max(item.inProgressMs, sentAt - (item.lostAttemptAt ?? item.startedAt!));
        this.deferred.push({ index, due: Date.now() + 1_000 });
        return;
      }
      if (res && res.status >= 200 && res.status < 300) {
        item.id = this.idOf(res);
        item.doneAt = Date.now();
        return;
      }
      const code = res?.body?.reason_code;
      if (res && res.status === 409 && typeof code === 'string' && this.answerLostCodes.includes(code) && item.attempts > 1) {
        item.answerLost = code;
        item.doneAt = Date.now();
        return;
      }
      if (!retryable(res)) {
        item.failure = `${res?.status} ${res?.text.slice(0, 300)}`;
        item.doneAt = Date.now();
        return;
      }
      // A 5xx (the database cut under it) may leave its claim behind too: the release failed with the rest.
      if (res) item.lostAttemptAt = Date.now();
      await sleep(100 + Math.random() * 200);
    }
  }
}

/**
 * Issue item "Kill tests with figures": one region runs as a child process the test owns, its
 * Postgres and NATS behind proxies the test controls. Three workloads run at once — 1,000 grants,
 * 1,000 consent records and the withdrawal of each record (the platform Idempotency-Key store's
 * path) — and with them 2,000 webhook events (`consent.granted` of each record, `consent.revoked` of
 * each withdrawal), while the process is SIGKILLed at least 22 times, at random moments and at every
 * named fault point. Clients retry with the same idempotency key until they have a final answer.
 * Afterwards: no acknowledged write is lost; grants, records, withdrawals, receipts and audit entries
 * exist once each; every webhook event is delivered, again only after a kill caught it between the
 * receiver's answer and the delivery mark, and always with the same event id; no key answers "in
 * progress" longer than its 30 s lock after the attempt that claimed it. The figures are printed.
 */
describe('a region SIGKILLed again and again under load', () => {
  const receiver = new LoopbackReceiver();
  let harness: FaultHarness;
  let db: DataSource;
  let app: TestApp;
  let flowId: string;
  let key: AgentKey;
  const agents: string[] = [];
  let harnessStarted = 0;

  beforeAll(async () => {
    await receiver.start();
    harnessStarted = Date.now();
    harness = await FaultHarness.start('kill_test', {
      env: { DATABASE_POOL_SIZE: '4', WEBHOOK_LEASE_SEC: '45' },
      arming: armingOf,
    });
    db = createDataSource({ url: harness.database.url, poolSize: 2, applicationName: 'kill-test' });
    await db.initialize();
    // Setup before any kill: the application (as the admin CLI creates one), agents, authorities, flow, subscription.
    const created = await new CreateApplication(
      new ApplicationsRepository(db),
      new OutboxWriter(GATEWAY_SCHEMA, harness.region),
      new SystemClock(),
      { REGION: harness.region } as PlatformConfig,
    ).execute(CreateApplicationCommand.create({ name: 'Kill test', environment: 'development' }));
    app = { id: created.application.id, token: created.apiToken };
    key = await newAgentKey();
    for (let i = 0; i < AGENTS; i += 1) {
      const agentId = await createAgent(harness.url, app, { manifest: true });
      await createAuthority(harness.url, app, agentId, {
        value_bounds: { currency: 'EUR', per_action: '100.00', aggregate: '100000000' },
        oap_sequence_bounds: { max_per_minute: 1_000_000, max_continuation_depth: 2 },
        valid_until: new Date(Date.now() + 7 * 86_400_000).toISOString(),
      });
      agents.push(agentId);
    }
    flowId = await activeNewsletterFlow(harness.url, bearer(app.token));
    const subscription = await http('POST', `${harness.url}/api/v1/applications/${app.id}/webhook_subscriptions`, {
      headers: bearer(app.token),
      json: { url: receiver.url('/hook'), events: ['consent.granted', 'consent.revoked'] },
    });
    expect(subscription.status).toBe(201);
  }, 120_000);

  afterAll(async () => {
    await db?.destroy().catch(() => undefined);
    await harness?.close();
    await receiver.close();
  });

  const count = async (sql: string, params: unknown[] = []): Promise<number> =>
    ((await db.query(sql, params)) as Array<{ n: number }>)[0]?.n ?? 0;

  it('loses no acknowledged write, doubles no side effect, and leaves no key in progress beyond its lock', async () => {
    const validUntil = new Date(Date.now() + 3_600_000).toISOString();
    const capturedAt = new Date(Date.now() - 60_000).toISOString();
    const grantUrl = `${harness.url}/api/v1/grants`;
    const grants = new Workload(
      'grant',
      ITEMS,
      async (i) =>
        http('POST', grantUrl, {
          headers: {
            ...bearer(app.token),
            dpop: await dpopProof(key, 'POST', grantUrl, { now: new Date() }),
            'idempotency-key': `kill-grant-${i}`,
          },
          json: grantBody(agents[i % AGENTS]!, key, { valid_until: validUntil }),
        }),
      (res) => res.body.grant_id as string,
    );
    const records = new Workload(
      'record',
      ITEMS,
      (i) =>
        http('POST', `${harness.url}/api/v1/consent_records`, {
          headers: bearer(app.token),
          json: {
            flow_id: flowId,
            subject: { external_id: `kill-${i}` },
            decisions: { newsletter: { decision: 'granted', default_checked: false, mandatory: false } },
            captured_at: capturedAt,
            idempotency_key: `kill-record-${i}`,
          },
        }),
      (res) => res.body.id as string,
    );
    const withdraw = (i: number): Promise<HttpResult> =>
      http('POST', `${harness.url}/api/v1/consent_records/${records.items[i]!.id!}/withdrawals`, {
        headers: { ...bearer(app.token), 'idempotency-key': `kill-withdrawal-${i}` },
        json: { channel: 'organisation' },
      });
    const withdrawals = new Workload(
      'withdrawal',
      ITEMS,
      withdraw,
      (res) => res.body.id as string,
      (i) => records.items[i]!.id !== undefined,
      // A kill between the withdrawal's commit (which marks its claim applied) and its stored answer
      // leaves a retry after the lock the answer-lost refusal: applied once, never run again (checked below).
      ['idempotency_key_answer_lost'],
    );
    const workloads = [grants, records, withdrawals];
    /** The webhook events the receiver has seen, as `<event>/<record id>`. */
    const seenEvents = (): Set<string> =>
      new Set(receiver.on('/hook').map((r) => `${String(r.body.event)}/${String((r.body.data as Record<string, unknown>).record_id)}`));
    /** Webhook events due (records written, withdrawals applied) that the receiver has not seen yet. */
    const webhooksPending = (): number => {
      const seen = seenEvents();
      const granted = records.items.filter((item) => item.id !== undefined && !seen.has(`consent.granted/${item.id}`)).length;
      const revoked = withdrawals.items.filter(
        (item, i) => (item.id !== undefined || item.answerLost) && !seen.has(`consent.revoked/${records.items[i]!.id}`),
      ).length;
      return granted + revoked;
    };
    const killedInFlight = { grant: 0, record: 0, withdrawal: 0, webhook: 0 };
    const release = (): void => {
      for (const workload of workloads) workload.release(Math.ceil(((harness.kills + 1) * ITEMS) / KILLS));
    };
    harness.onDeath = (death) => {
      if (process.env.SVC_KILL_TEST_TRACE)
        process.stderr.write(
          `${death.at} ms: death ${harness.deaths.length} (${causeOf(death)}, armed ${death.arming ?? 'nothing'}); acknowledged grants ${grants.acknowledged}, records ${records.acknowledged}, withdrawals ${withdrawals.acknowledged}, webhooks pending ${webhooksPending()}; oldest open: ${workloads.map((w) => `${w.name} ${w.oldest()}`).join(', ')}\n`,
        );
      if (grants.inFlight) killedInFlight.grant += 1;
      if (records.inFlight) killedInFlight.record += 1;
      if (withdrawals.inFlight) killedInFlight.withdrawal += 1;
      if (records.inFlight || withdrawals.inFlight || webhooksPending() > 0) killedInFlight.webhook += 1;
      release();
    };
    const started = Date.now();
    release();

    /** Proxy cuts made while the writes run: which connections, and when (epoch ms). */
    const cuts: Array<{ proxy: 'database' | 'bus'; from: number; to: number }> = [];
    /** Cuts the region's database or bus connections for two seconds, in the fourth and eighth of every eight cycles. */
    const cutSometimes = async (cycle: number): Promise<void> => {
      if (cycle % 4 !== 3) return;
      const proxy = cycle % 8 === 3 ? 'database' : 'bus';
      await sleep(300 + Math.random() * 700);
      const from = Date.now();
      if (proxy === 'database') harness.cutDatabase();
      else harness.cutBus();
      await sleep(2_000);
      if (proxy === 'database') harness.restoreDatabase();
      else harness.restoreBus();
      cuts.push({ proxy, from, to: Date.now() });
    };
    const killer = async (): Promise<void> => {
      while (harness.kills < KILLS) {
        await harness.waitReady();
        await cutSometimes(harness.kills);
        // An armed process gets longer to reach its point; one armed with nothing dies at a random moment.
        const wait = harness.currentArming ? 6_000 : 500 + Math.random() * 2_500;
        const death = await Promise.race([harness.nextDeath(), sleep(wait).then(() => undefined)]);
        if (!death && harness.ready) await harness.kill();
      }
      // The last process runs armed with nothing, so the drain is not cut short.
      await harness.disarm();
    };
    // The region's Postgres connections, as its proxy counts them (two sockets each), at their peak.
    let peakConnections = 0;
    const sampler = setInterval(() => (peakConnections = Math.max(peakConnections, harness.databaseProxy.openConnections / 2)), 100);
    await Promise.all([killer(), ...workloads.map((workload) => workload.run())]).finally(() => clearInterval(sampler));
    const written = Date.now();
    expect(grants.failures).toEqual([]);
    expect(records.failures).toEqual([]);
    expect(withdrawals.failures).toEqual([]);

    // Drain: every event published, consumed and delivered (leases of killed workers lapse after 45 s).
    await harness.waitReady();
    const unpublished = (): Promise<number> =>
      count(
        `SELECT ((SELECT count(*) FROM oap.outbox WHERE published_at IS NULL) + (SELECT count(*) FROM consent_records.outbox WHERE published_at IS NULL)
           + (SELECT count(*) FROM webhooks.deliveries WHERE status = 'pending'))::int AS n`,
      );
    const drainState = async (): Promise<Record<string, unknown>> => ({
      webhooksPending: webhooksPending(),
      ...(
        (await db.query(
          `SELECT (SELECT count(*) FROM oap.outbox WHERE published_at IS NULL)::int AS oap_unpublished,
                (SELECT count(*) FROM consent_records.outbox WHERE published_at IS NULL)::int AS records_unpublished,
                (SELECT count(*) FROM consent_records.outbox WHERE event_type = 'consent.recorded')::int AS recorded_events,
                (SELECT count(*) FROM webhooks.deliveries)::int AS deliveries,
                (SELECT count(*) FROM webhooks.deliveries WHERE status = 'pending')::int AS deliveries_pending,
                (SELECT count(*) FROM webhooks.deliveries WHERE status = 'pending' AND lease_expires_at IS NOT NULL)::int AS deliveries_leased,
                (SELECT count(*) FROM webhooks.inbox)::int AS webhooks_inbox`,
        )) as Array<Record<string, unknown>>
      )[0],
    });
    await waitFor(async () => webhooksPending() === 0 && (await unpublished()) === 0, 150_000, 500).catch(async (error: unknown) => {
      throw new Error(`${String(error)}; ${JSON.stringify(await drainState())}`);
    });
    const auditedEvents = async (): Promise<string[]> => {
      const rows: Array<{ id: string; event_type: string }> = await db.query(
        `SELECT id::text, event_type FROM oap.outbox UNION ALL SELECT id::text, event_type FROM consent_records.outbox`,
      );
      return rows.filter((row) => isAuditedEventType(row.event_type)).map((row) => row.id);
    };
    const audited = await auditedEvents();
    await waitFor(
      async () =>
        (await count(`SELECT count(*)::int AS n FROM audit.entries WHERE source_event_id = ANY($1)`, [audited])) === audited.length,
      60_000,
      500,
    );
    await waitFor(
      async () =>
        (await count(`SELECT count(*)::int AS n FROM receipts.frozen_receipts WHERE record_id = ANY($1)`, [
          records.items.map((i) => i.id),
        ])) === ITEMS &&
        (await count(
          `SELECT count(DISTINCT record_id)::int AS n FROM receipts.receipt_transitions WHERE transition_type = 'consent_withdrawn'`,
        )) === ITEMS,
      60_000,
      500,
    );
    const drained = Date.now();
    // The figures, measured before they are asserted on.
    const grantIds = grants.items.map((item) => item.id!);
    const recordIds = records.items.map((item) => item.id!);
    const stored: Array<{ id: string; idempotency_key: string }> = await db.query(
      `SELECT id, idempotency_key FROM consent_records.records WHERE application_id = $1`,
      [app.id],
    );
    const figures = {
      grantsFound: await count(`SELECT count(*)::int AS n FROM oap.grants WHERE id = ANY($1)`, [grantIds]),
      grantsStored: await count(`SELECT count(*)::int AS n FROM oap.grants WHERE application_id = $1`, [app.id]),
      decisions: await count(`SELECT count(*)::int AS n FROM oap.decisions WHERE application_id = $1`, [app.id]),
      grantReceipts: await count(`SELECT count(DISTINCT receipt_jti)::int AS n FROM oap.grants WHERE application_id = $1`, [app.id]),
      grantEvents: await count(`SELECT count(*)::int AS n FROM oap.outbox WHERE event_type = 'grant.decided'`),
      recordEvents: await count(`SELECT count(*)::int AS n FROM consent_records.outbox WHERE event_type = 'consent.recorded'`),
      frozenReceipts: await count(`SELECT count(*)::int AS n FROM receipts.frozen_receipts WHERE record_id = ANY($1)`, [recordIds]),
      withdrawalsStored: await count(`SELECT count(*)::int AS n FROM consent_records.withdrawals WHERE record_id = ANY($1)`, [recordIds]),
      recordsWithdrawn: await count(
        `SELECT count(DISTINCT record_id)::int AS n FROM consent_records.withdrawals WHERE record_id = ANY($1)`,
        [recordIds],
      ),
      revokedEvents: await count(`SELECT count(*)::int AS n FROM consent_records.outbox WHERE event_type = 'consent.record_revoked'`),
      withdrawnTransitions: await count(
        `SELECT count(*)::int AS n FROM receipts.receipt_transitions WHERE transition_type = 'consent_withdrawn' AND record_id = ANY($1)`,
        [recordIds],
      ),
      withdrawnTransitionRecords: await count(
        `SELECT count(DISTINCT record_id)::int AS n FROM receipts.receipt_transitions WHERE transition_type = 'consent_withdrawn' AND record_id = ANY($1)`,
        [recordIds],
      ),
      auditEntries: await count(`SELECT count(*)::int AS n FROM audit.entries WHERE source_event_id = ANY($1)`, [audited]),
      deliveryRows: await count(`SELECT count(*)::int AS n FROM webhooks.deliveries WHERE NOT is_test`),
      deliveriesNotSucceeded: await count(`SELECT count(*)::int AS n FROM webhooks.deliveries WHERE NOT is_test AND status <> 'succeeded'`),
      grantKeysInFlight: await count(`SELECT count(*)::int AS n FROM oap.idempotency_keys WHERE state = 'in_flight'`),
      keysLockedOver30s: await count(
        `SELECT count(*)::int AS n FROM (SELECT locked_until, created_at FROM oap.idempotency_keys UNION ALL SELECT locked_until, created_at FROM idempotency.requests) k
          WHERE k.locked_until > k.created_at + interval '30 seconds'`,
      ),
    };
    // A platform key can stay in flight after its client had its final answer: a 2xx whose answer
    // could not be stored (a database cut between the commit and the store) leaves the claim to its
    // lock. It is not stuck: once the lock ends, a retry gets a final answer, never "in progress".
    const leftovers: Array<{ key: string; locked_until: Date }> = await db.query(
      `SELECT key, locked_until FROM idempotency.requests WHERE state = 'in_flight' ORDER BY key`,
    );
    const leftoverRetries: string[] = [];
    for (const leftover of leftovers) {
      const index = /^kill-withdrawal-([0-9]+)$/.exec(leftover.key)?.[1];
      await sleep(Math.max(0, new Date(leftover.locked_until).getTime() - Date.now() + 250));
      const res = index === undefined ? undefined : await withdraw(Number(index));
      leftoverRetries.push(`${leftover.key}: ${res?.status} ${String(res?.body?.reason_code ?? '')}`.trim());
    }
    const deliveries = receiver.on('/hook');
    /** Deliveries received, by webhook event (`<event>/<record id>`). */
    const byRecord = new Map<string, Array<{ eventId: string; at: number }>>();
    for (const delivery of deliveries) {
      const event = `${String(delivery.body.event)}/${String((delivery.body.data as Record<string, unknown>).record_id)}`;
      byRecord.set(event, [...(byRecord.get(event) ?? []), { eventId: delivery.body.id as string, at: delivery.receivedAt }]);
    }
    // A repeated delivery is one an interruption caught between the receiver's answer and the
    // delivery mark: a death, or a database cut the mark could not be written through. There must
    // be one between any two deliveries of one event.
    const interruptions = [
      ...harness.deaths.map((death) => ({ from: death.time, to: death.time })),
      ...cuts.filter((cut) => cut.proxy === 'database'),
    ];
    const interruptionBetween = (first: number, second: number): number =>
      interruptions.findIndex((interruption) => interruption.to > first && interruption.from < second);
    const unexplainedRepeats: string[] = [];
    const repeatCauses = new Set<number>();
    for (const [event, received] of byRecord) {
      for (let i = 1; i < received.length; i += 1) {
        const cause = interruptionBetween(received[i - 1]!.at, received[i]!.at);
        if (cause < 0) unexplainedRepeats.push(event);
        else repeatCauses.add(cause);
      }
    }
    const duplicates = deliveries.length - byRecord.size;
    const kills = harness.kills;
    const longestInProgress = Math.max(...workloads.flatMap((w) => w.items.map((item) => item.inProgressMs)));
    const byCause = new Map<string, number>();
    for (const death of harness.deaths) byCause.set(causeOf(death), (byCause.get(causeOf(death)) ?? 0) + 1);
    const restarts = harness.restartMs;
    const mean = restarts.reduce((sum, ms) => sum + ms, 0) / Math.max(1, restarts.length);
    console.log(
      [
        `kill test: ${kills} kills of the region process, ${harness.deaths.length} deaths in all (${[...byCause].map(([cause, n]) => `${n} ${cause}`).join(', ')})`,
        `kills with work in flight: grants ${killedInFlight.grant}, records ${killedInFlight.record}, withdrawals ${killedInFlight.withdrawal}, webhook events ${killedInFlight.webhook}`,
        `restarts: ${restarts.length}, death to listening mean ${Math.round(mean)} ms, max ${Math.max(...restarts)} ms`,
        `grants: ${grants.acknowledged}/${ITEMS} acknowledged in ${grants.requests} requests (${grants.requests - grants.acknowledged} retries); ${figures.grantsFound} found, ${figures.grantsStored} stored, ${figures.decisions} decisions, ${figures.grantReceipts} receipts, ${figures.grantEvents} grant.decided events`,
        `records: ${records.acknowledged}/${ITEMS} acknowledged in ${records.requests} requests (${records.requests - records.acknowledged} retries); ${stored.length} stored, ${figures.recordEvents} consent.recorded events, ${figures.frozenReceipts} frozen receipts`,
        `audit: ${figures.auditEntries} entries for ${audited.length} audited events`,
        `withdrawals: ${withdrawals.acknowledged}/${ITEMS} acknowledged in ${withdrawals.requests} requests, answers lost after commit ${JSON.stringify(withdrawals.answersLost)}; ${figures.withdrawalsStored} stored for ${figures.recordsWithdrawn} records, ${figures.revokedEvents} consent.record_revoked events`,
        `receipts: ${figures.frozenReceipts} frozen for ${ITEMS} records, ${figures.withdrawnTransitions} consent_withdrawn transitions for ${figures.withdrawnTransitionRecords} records`,
        `webhook events: ${byRecord.size}/${2 * ITEMS} delivered, ${figures.deliveryRows} delivery rows; ${deliveries.length} requests received, ${duplicates} repeated (same event id) after ${repeatCauses.size} of the kills and database cuts; ${unexplainedRepeats.length} repeats without one`,
        `Postgres connections of the region at their peak: ${peakConnections}`,
        `proxy cuts of 2 s during the writes: ${cuts.filter((cut) => cut.proxy === 'database').length} database, ${cuts.filter((cut) => cut.proxy === 'bus').length} bus`,
        `idempotency keys: ${figures.grantKeysInFlight} grant keys in flight; ${leftovers.length} platform keys in flight after a 2xx whose answer was not stored, retried after their lock: ${JSON.stringify(leftoverRetries)}; ${figures.keysLockedOver30s} locked over 30 s; longest "in progress" answer after the attempt that may hold the claim: ${longestInProgress} ms`,
        `slowest write from first attempt to final answer: ${workloads.map((w) => `${w.name} ${w.slowest} ms`).join(', ')}`,
        `durations: setup ${Math.round((started - harnessStarted) / 1000)} s, writes under kills ${Math.round((written - started) / 1000)} s, drain ${Math.round((drained - written) / 1000)} s`,
      ].join('\n'),
    );

    // Grants: every acknowledged one exists, once; one decision, one receipt, one grant.decided event each.
    expect(new Set(grantIds).size).toBe(ITEMS);
    expect(figures).toMatchObject({ grantsFound: ITEMS, grantsStored: ITEMS, decisions: ITEMS, grantReceipts: ITEMS, grantEvents: ITEMS });
    // Records: every acknowledged one exists, once, under its key; one event and one frozen receipt each.
    expect(new Set(recordIds).size).toBe(ITEMS);
    expect(new Map(stored.map((row) => [row.idempotency_key, row.id]))).toEqual(
      new Map(recordIds.map((id, i) => [`kill-record-${i}`, id])),
    );
    expect(figures).toMatchObject({ recordEvents: ITEMS, frozenReceipts: ITEMS });
    // Withdrawals: every record withdrawn once, acknowledged or applied with its answer lost; one event each.
    expect(withdrawals.acknowledged + Object.values(withdrawals.answersLost).reduce((sum, n) => sum + n, 0)).toBe(ITEMS);
    expect(figures).toMatchObject({
      withdrawalsStored: ITEMS,
      recordsWithdrawn: ITEMS,
      revokedEvents: ITEMS,
      withdrawnTransitions: ITEMS,
      withdrawnTransitionRecords: ITEMS,
    });
    // Audit: one entry per audited event (the source event id is unique in the chain).
    expect(figures.auditEntries).toBe(audited.length);
    // Webhooks: one delivery row per event, all delivered; each record's webhook arrived, always under one event id,
    // and again only after a kill.
    expect(figures).toMatchObject({ deliveryRows: 2 * ITEMS, deliveriesNotSucceeded: 0 });
    expect([...byRecord.keys()].sort()).toEqual(recordIds.flatMap((id) => [`consent.granted/${id}`, `consent.revoked/${id}`]).sort());
    expect([...byRecord.values()].filter((received) => new Set(received.map((r) => r.eventId)).size !== 1)).toEqual([]);
    expect(unexplainedRepeats).toEqual([]);
    // Idempotency keys: none left in progress, none locked longer than 30 s, no client told "in progress" for longer.
    expect(figures).toMatchObject({ grantKeysInFlight: 0, keysLockedOver30s: 0 });
    expect(leftoverRetries.filter((retry) => !/: (2[0-9][0-9]|409 idempotency_key_answer_lost)$/.test(retry))).toEqual([]);
    // The lock runs from the claim, made before the claiming attempt ended; a little for the clocks' reading.
    expect(longestInProgress).toBeLessThan(LOCK_MS + 500);
    expect(kills).toBeGreaterThanOrEqual(KILLS);
  }, 420_000);
});

function causeOf(death: Death): string {
  if (death.faultPoint) return `at ${death.faultPoint}`;
  if (death.killedByHarness) return 'at random moments';
  return death.booted ? `exits (${death.signal ?? death.code})` : `failed boots (${death.signal ?? `exit ${death.code}`})`;
}
