import { create, toBinary } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { BusConnection, EventPublisher, ensureRegionStream, serveEvents } from '@svc/bus';
import { AuditEventEnvelopeSchema, EventMetaSchema, eventSubject, regionStreamName } from '@svc/contracts';
import { TEST_NATS_URL, createTestDatabase, deleteTestStreams, uniqueBusPrefix, waitFor } from '@svc/testing';
import { AuditChain } from '../src/audit-chain.runtime';
import { AuditEventConsumer } from '../src/consumer/audit-event-consumer';
import { openChain, type ChainFixture } from './support/chain-fixture';

function event(prefix: string, type: string, id: string) {
  const meta = create(EventMetaSchema, {
    eventId: id,
    eventType: type,
    schemaVersion: 1,
    region: 'us',
    applicationId: 'tp_us_cccccccccccccccccccc',
    occurredAt: timestampFromDate(new Date('2026-01-02T03:04:05Z')),
  });
  return {
    id,
    eventType: type,
    subject: eventSubject(prefix, 'us', type),
    data: toBinary(AuditEventEnvelopeSchema, create(AuditEventEnvelopeSchema, { meta })),
  };
}

/** Issue 9 Deliver 1: the events the catalogue declares audited become entries, each once. */
describe('audit event consumer (JetStream + Postgres)', () => {
  const prefix = uniqueBusPrefix();
  let bus: BusConnection;
  let f: ChainFixture;
  const errors: unknown[] = [];
  const log = { error: (_message: string, context: Record<string, unknown>) => errors.push(context) };
  const serveConsumer = () => serveEvents(bus, [AuditEventConsumer], [{ provide: AuditChain, useValue: f.chain }], log);

  beforeAll(async () => {
    f = await openChain(await createTestDatabase('audit_consumer'));
    bus = await BusConnection.connect({ url: TEST_NATS_URL, prefix, region: 'us', name: 'audit-consumer-test' });
    await ensureRegionStream(bus.jsm, prefix, 'us');
  });
  afterAll(async () => {
    await bus?.close();
    await f?.close();
    await deleteTestStreams(prefix);
  });

  const count = async (): Promise<number> =>
    Number(((await f.dataSource.query('SELECT count(*) AS n FROM audit.entries')) as Array<{ n: string }>)[0]?.n);

  it('appends the audited types of the catalogue only, and a stream consumed twice appends each event once', async () => {
    const publisher = new EventPublisher(bus);
    await publisher.publishAll([
      event(prefix, 'consent_session.granted', 'e-1'),
      event(prefix, 'application.created', 'e-2'),
      event(prefix, 'grant.decided', 'e-3'),
      event(prefix, 'webhook.delivery_failed', 'e-4'),
      // Not in the catalogue: nothing declares it audited.
      event(prefix, 'consent.test_only_granted', 'e-5'),
      {
        id: 'e-6',
        eventType: 'oap.approval_expired',
        subject: eventSubject(prefix, 'us', 'oap.approval_expired'),
        data: new Uint8Array([0xff, 0xff]),
      },
    ]);
    const consumer = await serveConsumer();
    await waitFor(async () => (await count()) === 5);
    await consumer.close();

    // Consume the whole stream again from the start (a lost consumer, a replay): nothing is appended twice.
    await bus.jsm.consumers.delete(regionStreamName(prefix, 'us'), 'audit-chain');
    const replay = await serveConsumer();
    await waitFor(
      async () =>
        (await bus.jsm.consumers.info(regionStreamName(prefix, 'us'), 'audit-chain')).num_ack_pending === 0 &&
        (await bus.jsm.consumers.info(regionStreamName(prefix, 'us'), 'audit-chain')).num_pending === 0,
    );
    await replay.close();

    const rows: Array<{ source_event_id: string; entry_type: string; application_id: string | null; canonical: string }> =
      await f.dataSource.query(
        'SELECT source_event_id, entry_type, application_id, canonical FROM audit.entries WHERE idx > 0 ORDER BY source_event_id',
      );
    expect(rows.map((r) => [r.source_event_id, r.entry_type])).toEqual([
      ['e-1', 'consent_session.granted'],
      ['e-3', 'grant.decided'],
      ['e-4', 'webhook.delivery_failed'],
      ['e-6', 'oap.approval_expired'],
    ]);
    expect(rows[0]?.application_id).toBe('tp_us_cccccccccccccccccccc');
    expect(JSON.parse(rows[0]?.canonical ?? '{}')).toMatchObject({
      occurred_at: '2026-01-02T03:04:05.000Z',
      source_event_id: 'e-1',
      data: { encoding: 'json' },
    });
    expect(JSON.parse(rows[3]?.canonical ?? '{}')).toMatchObject({ data: { undecodable: true, payload: '//8=' } });
    expect((await f.chain.verifyChain.execute()).valid).toBe(true);
    expect(errors).toEqual([]);
  });
});
