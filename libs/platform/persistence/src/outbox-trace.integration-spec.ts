import { Controller } from '@nestjs/common';
import { fromBinary } from '@bufbuild/protobuf';
import { SpanKind, context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
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
import { createDataSource } from './data-source';
import { createOutboxAndInbox, outboxTraceContextMigrations, runMigrations } from './migrations';
import { OutboxWriter } from './outbox';
import { OutboxRelay } from './outbox-relay';

const SCHEMA = 'trace_outbox';
const LEGACY_SCHEMA = 'trace_outbox_legacy';

class CreateTraceOutbox1 implements MigrationInterface {
  name = 'CreateTraceOutbox1';
  async up(runner: QueryRunner): Promise<void> {
    await createOutboxAndInbox(runner, SCHEMA);
  }
  async down(): Promise<void> {}
}

/** An outbox as the first migrations created it, before trace context was stored. */
class CreateLegacyOutbox1 implements MigrationInterface {
  name = 'CreateLegacyOutbox1';
  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`CREATE TABLE ${LEGACY_SCHEMA}.outbox (seq bigserial PRIMARY KEY, id uuid NOT NULL UNIQUE, event_type text NOT NULL, payload bytea NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(), published_at timestamptz)`);
    await runner.query(
      `INSERT INTO ${LEGACY_SCHEMA}.outbox (id, event_type, payload) VALUES ('00000000-0000-4000-8000-000000000001', 'application.created', '\\x00')`,
    );
  }
  async down(): Promise<void> {}
}

/**
 * The outbox keeps the trace of the transaction that wrote an event: the row stores its W3C
 * context, the event's `meta.trace_id` names it, and the relay (running later, outside any
 * request) publishes under it, so consumers join the writer's trace (real Postgres and NATS).
 */
describe('outbox trace context', () => {
  const prefix = uniqueBusPrefix();
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  let database: TestDatabase;
  let dataSource: DataSource;
  let bus: BusConnection;
  let consumer: EventService;
  const received: Array<{ event: DeliveredEvent; traceId?: string }> = [];
  const writer = new OutboxWriter(SCHEMA, 'us');

  beforeAll(async () => {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    trace.setGlobalTracerProvider(provider);
    database = await createTestDatabase('outbox_trace');
    dataSource = createDataSource({ url: database.url, poolSize: 4, applicationName: 'outbox-trace-test' });
    await dataSource.initialize();
    await runMigrations(dataSource, { schema: SCHEMA, migrations: [CreateTraceOutbox1] });
    bus = await BusConnection.connect({ url: TEST_NATS_URL, prefix, region: 'us', name: 'outbox-trace-test' });
    await ensureRegionStream(bus.jsm, prefix, 'us');
    @Controller()
    class OutboxTraceConsumer {
      @EventConsumer({ durable: 'outbox-trace-test', types: '>' })
      async handle(event: DeliveredEvent): Promise<void> {
        received.push({ event, traceId: trace.getActiveSpan()?.spanContext().traceId });
      }
    }
    consumer = await serveEvents(bus, [OutboxTraceConsumer]);
  });

  afterAll(async () => {
    await consumer?.close();
    await bus?.close();
    await dataSource?.destroy();
    await database?.drop();
    await deleteTestStreams(prefix);
    await provider.shutdown();
    trace.disable();
    context.disable();
  });

  it('publishes an event under the trace of the request that wrote it, with meta.trace_id filled', async () => {
    const request = provider.getTracer('test').startSpan('POST /things', { kind: SpanKind.SERVER });
    const id = await context.with(trace.setSpan(context.active(), request), () =>
      dataSource.transaction((manager) =>
        writer.add(manager, 'application.created', { applicationId: 'tp_1', name: 'n', environment: 'development', mode: 'conductor' }),
      ),
    );
    request.end();
    const traceId = request.spanContext().traceId;
    const [row] = await dataSource.query(`SELECT trace_parent FROM ${SCHEMA}.outbox WHERE id = $1`, [id]);
    expect(row.trace_parent).toBe(`00-${traceId}-${request.spanContext().spanId}-01`);

    // The relay runs on its own, outside the request.
    expect(await new OutboxRelay(dataSource, new EventPublisher(bus), { schema: SCHEMA, prefix, region: 'us' }).runOnce()).toBe(1);
    const delivered = await waitFor(() => received.find((r) => r.event.id === id));
    expect(fromBinary(ApplicationCreatedSchema, delivered.event.data).meta?.traceId).toBe(traceId);
    expect(delivered.traceId).toBe(traceId);
    const published = exporter
      .getFinishedSpans()
      .find((s) => s.name === 'application.created publish' && s.attributes['messaging.message.id'] === id);
    expect(published?.parentSpanContext?.spanId).toBe(request.spanContext().spanId);
  });

  it('writes no trace for an event written outside any trace', async () => {
    const id = await dataSource.transaction((manager) =>
      writer.add(manager, 'application.created', { applicationId: 'tp_2', name: 'n', environment: 'development', mode: 'conductor' }),
    );
    const [row] = await dataSource.query(`SELECT trace_parent, payload FROM ${SCHEMA}.outbox WHERE id = $1`, [id]);
    expect(row.trace_parent).toBeNull();
    expect(fromBinary(ApplicationCreatedSchema, row.payload).meta?.traceId).toBe('');
  });

  it('brings an outbox created before trace context existed up to date, keeping its pending rows', async () => {
    await runMigrations(dataSource, { schema: LEGACY_SCHEMA, migrations: [CreateLegacyOutbox1] });
    expect(await runMigrations(dataSource, outboxTraceContextMigrations(LEGACY_SCHEMA))).toEqual(['OutboxTraceContext1797800000000']);
    const rows = await dataSource.query(`SELECT id, trace_parent, trace_state FROM ${LEGACY_SCHEMA}.outbox`);
    expect(rows).toEqual([{ id: '00000000-0000-4000-8000-000000000001', trace_parent: null, trace_state: null }]);
    // A schema whose outbox already has the columns, or that has no outbox, is left as it is.
    expect(await runMigrations(dataSource, outboxTraceContextMigrations(SCHEMA))).toEqual(['OutboxTraceContext1797800000000']);
    await dataSource.query('CREATE SCHEMA IF NOT EXISTS trace_no_outbox');
    await expect(runMigrations(dataSource, outboxTraceContextMigrations('trace_no_outbox'))).resolves.toEqual([
      'OutboxTraceContext1797800000000',
    ]);
  });
});
