import { Controller } from '@nestjs/common';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fromBinary } from '@bufbuild/protobuf';
import {
  BusConnection,
  EventConsumer,
  EventPublisher,
  ensureRegionStream,
  serveEvents,
  type DeliveredEvent,
  type EventService,
} from '@svc/bus';
import { ApplicationCreatedSchema } from '@svc/contracts';
import { createTestDatabase, deleteTestStreams, uniqueBusPrefix, waitFor, TEST_NATS_URL, type TestDatabase } from '@svc/testing';
import type { DataSource, MigrationInterface, QueryRunner } from 'typeorm';
import { combinedWrite } from './combined-write';
import { createDataSource } from './data-source';
import { markProcessed, processOnce, processedAmong, wasProcessed } from './inbox';
import { createOutboxAndInbox, runMigrations } from './migrations';
import { OutboxWriter } from './outbox';
import { OutboxNotifications } from './outbox-notifications';
import { OutboxRelay } from './outbox-relay';

class CreateTestSchema1 implements MigrationInterface {
  name = 'CreateTestSchema1';
  async up(runner: QueryRunner): Promise<void> {
    await runner.query('CREATE TABLE relay_test.things (id text PRIMARY KEY)');
    await createOutboxAndInbox(runner, 'relay_test');
  }
  async down(): Promise<void> {}
}

class CreateSecondSchema1 implements MigrationInterface {
  name = 'CreateSecondSchema1';
  async up(runner: QueryRunner): Promise<void> {
    await createOutboxAndInbox(runner, 'relay_test_b');
  }
  async down(): Promise<void> {}
}

const SCHEMA = 'relay_test';

/** Architecture: transactional outbox, relay with Nats-Msg-Id = outbox id, consumer inbox. */
describe('transactional outbox, relay and inbox (real Postgres and NATS)', () => {
  let database: TestDatabase;
  let dataSource: DataSource;
  let bus: BusConnection;
  const prefix = uniqueBusPrefix();
  const received: DeliveredEvent[] = [];
  let consumer: EventService;
  let notifications: OutboxNotifications;
  const writer = new OutboxWriter(SCHEMA, 'us');
  const relay = (onClaimed?: (ids: readonly string[]) => Promise<void>) =>
    new OutboxRelay(dataSource, new EventPublisher(bus), { schema: SCHEMA, prefix, region: 'us', notifications, onClaimed });

  async function commitThing(id: string): Promise<string> {
    return dataSource.transaction(async (manager) => {
      await manager.query('INSERT INTO relay_test.things (id) VALUES ($1)', [id]);
      return writer.add(
        manager,
        'application.created',
        { applicationId: id, name: id, environment: 'development', mode: 'conductor' },
        { applicationId: id },
      );
    });
  }

  beforeAll(async () => {
    database = await createTestDatabase('outbox');
    dataSource = createDataSource({ url: database.url, poolSize: 4, applicationName: 'outbox-test' });
    await dataSource.initialize();
    await runMigrations(dataSource, { schema: SCHEMA, migrations: [CreateTestSchema1] });
    notifications = new OutboxNotifications(database.url, 'outbox-test-listener');
    bus = await BusConnection.connect({ url: TEST_NATS_URL, prefix, region: 'us', name: 'outbox-test' });
    await ensureRegionStream(bus.jsm, prefix, 'us');
    @Controller()
    class OutboxTestConsumer {
      @EventConsumer({ durable: 'outbox-test', types: '>' })
      async handle(event: DeliveredEvent): Promise<void> {
        await processOnce(dataSource, SCHEMA, 'outbox-test', event.id, async () => {
          received.push(event);
        });
      }
    }
    consumer = await serveEvents(bus, [OutboxTestConsumer]);
  });

  afterAll(async () => {
    await notifications?.close();
    await consumer?.close();
    await bus?.close();
    await dataSource?.destroy();
    await database?.drop();
    await deleteTestStreams(prefix);
  });

  it('publishes a committed event with Nats-Msg-Id = outbox id and its type and schema version', async () => {
    const id = await commitThing('a1');
    expect(await relay().runOnce()).toBe(1);
    const event = await waitFor(() => received.find((e) => e.id === id));
    expect(event.subject).toBe(`${prefix}.us.evt.application.created`);
    const message = fromBinary(ApplicationCreatedSchema, event.data);
    expect(message.meta).toMatchObject({
      eventId: id,
      eventType: 'application.created',
      schemaVersion: 1,
      region: 'us',
      applicationId: 'a1',
    });
  });

  it('publishes nothing for a rolled-back transaction', async () => {
    await expect(
      dataSource.transaction(async (manager) => {
        await writer.add(manager, 'application.created', {
          applicationId: 'rolled',
          name: 'r',
          environment: 'development',
          mode: 'conductor',
        });
        throw new Error('business failure');
      }),
    ).rejects.toThrow('business failure');
    expect(await relay().runOnce()).toBe(0);
  });

  it('loses no event when the relay dies between claiming the rows and publishing them', async () => {
    const ids = [await commitThing('k1'), await commitThing('k2'), await commitThing('k3')];
    const dying = relay(async () => {
      throw new Error('relay killed');
    });
    await expect(dying.runOnce()).rejects.toThrow('relay killed');
    const unpublished: Array<{ n: string }> = await dataSource.query(
      `SELECT count(*) AS n FROM relay_test.outbox WHERE published_at IS NULL`,
    );
    expect(Number(unpublished[0]!.n)).toBe(3);
    expect(await relay().runOnce()).toBe(3);
    await waitFor(() => ids.every((id) => received.some((e) => e.id === id)));
  });

  it('loses no event when a relay process is killed with its claim open, and another relay takes over', async () => {
    const id = await commitThing('p1');
    const runner = dataSource.createQueryRunner();
    await runner.connect();
    await runner.startTransaction();
    await runner.query(`SELECT id FROM relay_test.outbox WHERE published_at IS NULL FOR UPDATE`);
    const pid: Array<{ pid: number }> = await runner.query('SELECT pg_backend_pid() AS pid');
    // The claiming session dies as a killed process's would: Postgres rolls its transaction back.
    await dataSource.query('SELECT pg_terminate_backend($1)', [pid[0]!.pid]);
    await runner.release().catch(() => undefined);
    await waitFor(async () => (await relay().runOnce()) === 1, 5_000);
    await waitFor(() => received.some((e) => e.id === id));
  });

  it('loses no event when the relay process is SIGKILLed after claiming and before publishing', async () => {
    const ids = [await commitThing('sk1'), await commitThing('sk2')];
    const root = join(__dirname, '..', '..', '..', '..');
    const child = spawn(process.execPath, [join(root, 'scripts', 'run-ts.js'), join(__dirname, 'fixtures', 'hanging-relay.ts')], {
      env: { ...process.env, DATABASE_URL: database.url, BUS_PREFIX: prefix, NATS_URL: TEST_NATS_URL, OUTBOX_SCHEMA: SCHEMA },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => chunk.toString().includes('claimed') && resolve());
      child.once('exit', (code) => reject(new Error(`relay exited early (${code})`)));
    });
    expect(received.some((e) => ids.includes(e.id))).toBe(false);
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    await waitFor(async () => (await relay().runOnce()) >= 2, 10_000, 100);
    await waitFor(() => ids.every((id) => received.some((e) => e.id === id)));
  });

  it('a republish after a crash between publish and mark is delivered to the consumer once', async () => {
    const id = await commitThing('d1');
    const rows: Array<{ id: string; event_type: string; payload: Buffer }> = await dataSource.query(
      `SELECT id, event_type, payload FROM relay_test.outbox WHERE id = $1`,
      [id],
    );
    // First relay published but crashed before marking the row: publish by hand, leave it unmarked.
    await new EventPublisher(bus).publish({
      id,
      eventType: rows[0]!.event_type,
      subject: `${prefix}.us.evt.application.created`,
      data: new Uint8Array(rows[0]!.payload),
    });
    expect(await relay().runOnce()).toBe(1);
    await waitFor(() => received.some((e) => e.id === id));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(received.filter((e) => e.id === id)).toHaveLength(1);
  });

  it('the inbox runs the work once per message id even when delivered twice', async () => {
    let runs = 0;
    const work = async () => {
      runs += 1;
    };
    expect(await processOnce(dataSource, SCHEMA, 'inbox-test', 'm-1', work)).toBe(true);
    expect(await processOnce(dataSource, SCHEMA, 'inbox-test', 'm-1', work)).toBe(false);
    expect(await processOnce(dataSource, SCHEMA, 'other-consumer', 'm-1', work)).toBe(true);
    expect(runs).toBe(2);
  });

  it('the inbox mark rolls back with the work, so a failed message is processed again', async () => {
    await expect(
      processOnce(dataSource, SCHEMA, 'inbox-test', 'm-2', async () => {
        throw new Error('handler failed');
      }),
    ).rejects.toThrow('handler failed');
    expect(await processOnce(dataSource, SCHEMA, 'inbox-test', 'm-2', async () => undefined)).toBe(true);
  });

  it('marks a batch in the inbox with one call and answers only the ids not seen before', async () => {
    await processOnce(dataSource, SCHEMA, 'batch-inbox', 'b-1', async () => undefined);
    const fresh = await dataSource.transaction((manager) => markProcessed(manager, SCHEMA, 'batch-inbox', ['b-1', 'b-2', 'b-3']));
    expect(fresh.sort()).toEqual(['b-2', 'b-3']);
    expect(await dataSource.transaction((manager) => markProcessed(manager, SCHEMA, 'batch-inbox', ['b-2', 'b-3']))).toEqual([]);
    expect(await wasProcessed(dataSource, SCHEMA, 'batch-inbox', 'b-2')).toBe(true);
    expect(await wasProcessed(dataSource, SCHEMA, 'batch-inbox', 'b-4')).toBe(false);
    expect(await wasProcessed(dataSource, SCHEMA, 'other-consumer', 'b-2')).toBe(false);
    // A batch's check before its work: the ids this consumer processed, in one statement.
    expect(await processedAmong(dataSource, SCHEMA, 'batch-inbox', ['b-4', 'b-1', 'b-3', 'b-3'])).toEqual(new Set(['b-1', 'b-3']));
    expect(await processedAmong(dataSource, SCHEMA, 'other-consumer', ['b-1', 'b-2'])).toEqual(new Set());
    expect(await processedAmong(dataSource, SCHEMA, 'batch-inbox', [])).toEqual(new Set());
  });

  it("events written as part of a caller's own statement commit with its rows and wake a started relay", async () => {
    const running = relay();
    await running.start();
    try {
      const events = writer.batchInsert(
        ['batch1', 'batch2'].map((id) => ({
          type: 'application.created' as const,
          init: { applicationId: id, name: id, environment: 'development' as const, mode: 'conductor' as const },
          context: { applicationId: id },
        })),
        2,
      );
      await dataSource.query(
        `WITH thing AS (INSERT INTO relay_test.things (id) VALUES ($1::text) RETURNING 1), events AS (${events.insert} RETURNING 1) SELECT 1 FROM thing, (${events.notify}) AS notified`,
        ['batch-thing', ...events.params],
      );
      const published = await waitFor(() => {
        const found = events.ids.map((id) => received.find((e) => e.id === id));
        return found.every((e) => e !== undefined) ? found : undefined;
      }, 3_000);
      expect(published.map((e) => fromBinary(ApplicationCreatedSchema, e!.data).meta?.applicationId)).toEqual(['batch1', 'batch2']);
    } finally {
      await running.stop();
    }
  });

  it("events as a part of a combined write commit with the other parts' rows, in one statement, and wake a started relay", async () => {
    const running = relay();
    await running.start();
    try {
      const events = [
        {
          type: 'application.created' as const,
          init: { applicationId: 'part1', name: 'part1', environment: 'development' as const, mode: 'conductor' as const },
          context: { applicationId: 'part1' },
        },
      ];
      let ids: string[] = [];
      const statement = combinedWrite([
        (first) => ({
          ctes: [{ name: 'thing', sql: `INSERT INTO relay_test.things (id) VALUES ($${first}::text)` }],
          params: ['part-thing'],
        }),
        (first) => {
          const part = writer.writePart(events, first)!;
          ids = part.params[0] as string[];
          return part;
        },
      ])!;
      expect(writer.writePart([], 1)).toBeUndefined();
      await dataSource.query(statement.sql, statement.params);
      expect(await dataSource.query(`SELECT id FROM relay_test.things WHERE id = 'part-thing'`)).toHaveLength(1);
      const published = await waitFor(() => received.find((e) => e.id === ids[0]), 3_000);
      expect(fromBinary(ApplicationCreatedSchema, published.data).meta?.applicationId).toBe('part1');
    } finally {
      await running.stop();
    }
  });

  it('a started relay publishes promptly after commit without being asked', async () => {
    const running = relay();
    await running.start();
    try {
      const id = await commitThing('live1');
      await waitFor(() => received.some((e) => e.id === id), 3_000);
    } finally {
      await running.stop();
    }
  });

  it('one LISTEN connection wakes the relays of every schema of the process', async () => {
    await runMigrations(dataSource, { schema: 'relay_test_b', migrations: [CreateSecondSchema1] });
    const otherWriter = new OutboxWriter('relay_test_b', 'us');
    const relays = [
      relay(),
      new OutboxRelay(dataSource, new EventPublisher(bus), { schema: 'relay_test_b', prefix, region: 'us', notifications }),
    ];
    for (const running of relays) await running.start();
    try {
      const listeners = await dataSource.query(
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'outbox-test-listener'`,
      );
      expect(listeners[0].n).toBe(1);
      const ids = [
        await commitThing('shared-a'),
        await dataSource.transaction((manager) =>
          otherWriter.add(
            manager,
            'application.created',
            { applicationId: 'shared-b', name: 'b', environment: 'development', mode: 'conductor' },
            { applicationId: 'shared-b' },
          ),
        ),
      ];
      await waitFor(() => (ids.every((id) => received.some((e) => e.id === id)) ? true : undefined), 3_000);
    } finally {
      for (const running of relays) await running.stop();
    }
  });

  it('a local write wakes a relay that hears notifications only through its commit, not before it', async () => {
    const running = relay();
    await running.start();
    const kick = jest.spyOn(running, 'kick');
    const localWriter = new OutboxWriter(SCHEMA, 'us', () => running.enqueued());
    try {
      const id = await dataSource.transaction(async (manager) => {
        const written = await localWriter.add(
          manager,
          'application.created',
          { applicationId: 'quiet1', name: 'quiet1', environment: 'development', mode: 'conductor' },
          { applicationId: 'quiet1' },
        );
        await new Promise((resolve) => setImmediate(resolve));
        // A round now could not see the uncommitted row: nothing wakes the relay yet.
        expect(kick).not.toHaveBeenCalled();
        return written;
      });
      await waitFor(() => received.some((e) => e.id === id), 3_000);
      expect(kick).toHaveBeenCalled();
    } finally {
      await running.stop();
    }
  });

  it('a lost LISTEN connection comes back, and commits wake the relay through it again', async () => {
    const running = new OutboxRelay(dataSource, new EventPublisher(bus), {
      schema: SCHEMA,
      prefix,
      region: 'us',
      notifications,
      idlePollMs: 60_000,
    });
    await running.start();
    const localWriter = new OutboxWriter(SCHEMA, 'us', () => running.enqueued());
    try {
      expect(notifications.isListening(SCHEMA)).toBe(true);
      await dataSource.query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'outbox-test-listener'`,
      );
      await waitFor(() => (notifications.isListening(SCHEMA) ? undefined : true), 3_000);
      await waitFor(() => (notifications.isListening(SCHEMA) ? true : undefined), 5_000);
      const id = await dataSource.transaction((manager) =>
        localWriter.add(
          manager,
          'application.created',
          { applicationId: 'lost1', name: 'lost1', environment: 'development', mode: 'conductor' },
          { applicationId: 'lost1' },
        ),
      );
      // Far sooner than the 60 s poll: the commit's notification woke the relay.
      await waitFor(() => received.some((e) => e.id === id), 5_000);
    } finally {
      await running.stop();
    }
  });
});

describe('migrations', () => {
  let database: TestDatabase;
  let sources: DataSource[] = [];

  beforeAll(async () => {
    database = await createTestDatabase('migrations');
    sources = [0, 1, 2].map(() => createDataSource({ url: database.url, poolSize: 2, applicationName: 'migration-test' }));
    await Promise.all(sources.map((s) => s.initialize()));
  });
  afterAll(async () => {
    await Promise.all(sources.map((s) => s.destroy()));
    await database.drop();
  });

  it('applies each migration once even when three processes start together, and records it', async () => {
    const results = await Promise.all(sources.map((s) => runMigrations(s, { schema: SCHEMA, migrations: [CreateTestSchema1] })));
    expect(results.flat()).toEqual(['CreateTestSchema1']);
    const recorded: Array<{ name: string }> = await sources[0]!.query(`SELECT name FROM relay_test.schema_migrations`);
    expect(recorded.map((r) => r.name)).toEqual(['CreateTestSchema1']);
    expect(await runMigrations(sources[0]!, { schema: SCHEMA, migrations: [CreateTestSchema1] })).toEqual([]);
  });

  it('rolls a failing migration back entirely and names it', async () => {
    class Broken2 implements MigrationInterface {
      name = 'Broken2';
      async up(runner: QueryRunner): Promise<void> {
        await runner.query('CREATE TABLE relay_test.half (id int)');
        await runner.query('SELECT * FROM no_such_table');
      }
      async down(): Promise<void> {}
    }
    await expect(runMigrations(sources[0]!, { schema: SCHEMA, migrations: [CreateTestSchema1, Broken2] })).rejects.toThrow(
      /Migration Broken2 of schema relay_test failed/,
    );
    const half: unknown[] = await sources[0]!.query(
      `SELECT 1 FROM information_schema.tables WHERE table_schema = 'relay_test' AND table_name = 'half'`,
    );
    expect(half).toHaveLength(0);
  });
});
