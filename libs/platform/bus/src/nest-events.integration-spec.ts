import { Controller, Injectable } from '@nestjs/common';
import { Ctx, Payload } from '@nestjs/microservices';
import { regionStreamName } from '@svc/contracts';
import { TEST_NATS_URL, deleteTestStreams, uniqueBusPrefix, waitFor } from '@svc/testing';
import { BusConnection } from './bus-connection';
import { EventPublisher } from './event-publisher';
import {
  EventBatchConsumer,
  EventConsumer,
  EventFanout,
  JetStreamContext,
  serveEvents,
  type BatchOutcomes,
  type DeliveredEvent,
} from './nest-events';
import { ensureRegionStream } from './streams';

const seen: Array<{ handler: string; id: string; deliveryCount: number; durable?: string; region?: string }> = [];
const batches: Array<{ handler: string; ids: string[] }> = [];
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
let batchThrows = false;

@Controller()
class SingleHandlers {
  @EventConsumer({ durable: 'nest-acked', types: 'application.created' })
  async acked(@Payload() event: DeliveredEvent, @Ctx() context: JetStreamContext): Promise<void> {
    seen.push({
      handler: 'acked',
      id: event.id,
      deliveryCount: event.deliveryCount,
      durable: context.getDurable(),
      region: context.getRegion(),
    });
  }

  @EventConsumer({ durable: 'nest-bounded', types: 'application.updated' }, { maxDeliver: 3, ackWaitMs: 1_000 })
  async bounded(event: DeliveredEvent): Promise<void> {
    seen.push({ handler: 'bounded', id: event.id, deliveryCount: event.deliveryCount });
    throw new Error('always fails');
  }
}

const spans: Array<{ id: string; type: string; start: number; end: number }> = [];

@Controller()
class ConcurrentHandlers {
  @EventConsumer({ durable: 'nest-concurrent', types: 'approval.>' }, { concurrency: { limit: 3, types: ['approval.granted'] } })
  async concurrent(event: DeliveredEvent): Promise<void> {
    const start = performance.now();
    await sleep(40);
    spans.push({ id: event.id, type: event.eventType, start, end: performance.now() });
  }
}

@Controller()
class BatchHandlers {
  @EventBatchConsumer({ durable: 'nest-batches', types: 'consent.recorded' }, { batch: 4 })
  async batches(events: readonly DeliveredEvent[]): Promise<void> {
    batches.push({ handler: 'batches', ids: events.map((e) => e.id) });
    await sleep(20);
  }

  @EventBatchConsumer({ durable: 'nest-outcomes', types: 'consent.purpose_revoked' }, { batch: 16, maxDeliver: 3, ackWaitMs: 1_000 })
  async outcomes(events: readonly DeliveredEvent[]): Promise<BatchOutcomes> {
    return Promise.allSettled(
      events.map(async (event) => {
        seen.push({ handler: 'outcomes', id: event.id, deliveryCount: event.deliveryCount });
        if (event.id === 'bad') throw new Error('cannot handle');
      }),
    );
  }

  @EventBatchConsumer({ durable: 'nest-thrown', types: 'consent.record_revoked' }, { ackWaitMs: 1_000 })
  async thrown(events: readonly DeliveredEvent[]): Promise<void> {
    if (batchThrows) {
      batchThrows = false;
      throw new Error('database down');
    }
    for (const event of events) seen.push({ handler: 'thrown', id: event.id, deliveryCount: event.deliveryCount });
  }
}

/** A feature's configuration, read when the process starts. */
@Injectable()
class ReplicaSettings {
  regions: string[] = [];
}

@Controller()
class DecidedAtStart {
  @EventConsumer(
    (lookup) =>
      lookup(ReplicaSettings).regions.map((region) => ({
        durable: `nest-decided-from-${region}`,
        types: 'directory.subject_status',
        region,
      })),
    { maxDeliver: -1 },
  )
  async replica(@Payload() event: DeliveredEvent, @Ctx() context: JetStreamContext): Promise<void> {
    seen.push({
      handler: 'decided',
      id: event.id,
      deliveryCount: event.deliveryCount,
      durable: context.getDurable(),
      region: context.getRegion(),
    });
  }
}

@Controller()
class Listeners {
  @EventFanout('keys.signing_key_rotated')
  async rotated(event: DeliveredEvent): Promise<void> {
    seen.push({ handler: 'fanout', id: event.id, deliveryCount: event.deliveryCount });
  }
}

describe('JetStream events as a Nest transport: consumer handlers (real NATS)', () => {
  const prefix = uniqueBusPrefix();
  let bus: BusConnection;
  let eu: BusConnection;
  let ap: BusConnection;
  const of = (handler: string) => seen.filter((s) => s.handler === handler);
  const publish = (on: BusConnection, id: string, type: string) =>
    new EventPublisher(on).publish({ id, eventType: type, subject: `${prefix}.${on.region}.evt.${type}`, data: new Uint8Array([1]) });
  const drained = async (durable: string) => {
    const info = await bus.jsm.consumers.info(regionStreamName(prefix, 'us'), durable);
    return info.num_ack_pending === 0 && info.num_pending === 0;
  };
  const durablesOf = async (region: string): Promise<string[]> => {
    const names: string[] = [];
    for await (const consumer of bus.jsm.consumers.list(regionStreamName(prefix, region))) names.push(consumer.name);
    return names;
  };

  beforeAll(async () => {
    bus = await BusConnection.connect({ url: TEST_NATS_URL, prefix, region: 'us', name: 'events-test' });
    eu = await BusConnection.connect({ url: TEST_NATS_URL, prefix, region: 'eu', name: 'events-test-eu' });
    ap = await BusConnection.connect({ url: TEST_NATS_URL, prefix, region: 'ap', name: 'events-test-ap' });
    await ensureRegionStream(bus.jsm, prefix, 'us');
    await ensureRegionStream(eu.jsm, prefix, 'eu');
  });
  afterAll(async () => {
    await bus?.close();
    await eu?.close();
    await ap?.close();
    await deleteTestStreams(prefix);
  });

  it('acks a handled event once the handler resolved, so a restarted service does not see it again', async () => {
    const first = await serveEvents(bus, [SingleHandlers]);
    await publish(bus, 'acked-1', 'application.created');
    await waitFor(() => of('acked').length === 1);
    await first.close();
    const second = await serveEvents(bus, [SingleHandlers]);
    await publish(bus, 'acked-2', 'application.created');
    await waitFor(() => of('acked').length === 2);
    await sleep(500);
    await second.close();
    expect(of('acked')).toEqual([
      { handler: 'acked', id: 'acked-1', deliveryCount: 1, durable: 'nest-acked', region: 'us' },
      { handler: 'acked', id: 'acked-2', deliveryCount: 1, durable: 'nest-acked', region: 'us' },
    ]);
  });

  it('holds a durable back until released: its events wait in the stream', async () => {
    const service = await serveEvents(bus, [SingleHandlers]);
    try {
      const release = await service.server.hold('nest-acked');
      await publish(bus, 'held-1', 'application.created');
      await sleep(500);
      expect(of('acked').map((s) => s.id)).not.toContain('held-1');
      await release();
      await waitFor(() => of('acked').some((s) => s.id === 'held-1'));
    } finally {
      await service.close();
    }
  });

  it('redelivers a failing event with backoff, and dead-letters it on the last delivery maxDeliver allows', async () => {
    const logged: Array<{ message: string; context: Record<string, unknown> }> = [];
    const service = await serveEvents(bus, [SingleHandlers], [], { error: (message, context) => logged.push({ message, context }) });
    try {
      const { seq } = await publish(bus, 'bounded-1', 'application.updated');
      await waitFor(() => of('bounded').length >= 3, 15_000);
      await sleep(2_500);
      expect(of('bounded').map((s) => s.deliveryCount)).toEqual([1, 2, 3]);
      expect(logged.map((l) => l.message)).toEqual([
        'event handler failed; will redeliver',
        'event handler failed; will redeliver',
        'event dead-lettered: its handler failed on the last delivery allowed',
      ]);
      expect(logged[2]!.context).toMatchObject({
        durable: 'nest-bounded',
        eventId: 'bounded-1',
        deliveryCount: 3,
        stream: regionStreamName(prefix, 'us'),
        streamSequence: seq,
        error: 'always fails',
      });
      await waitFor(() => drained('nest-bounded'));
    } finally {
      await service.close();
    }
  });

  it('handles the concurrent types up to the limit at once, and an event of another type alone, in its place', async () => {
    for (let i = 1; i <= 6; i += 1) await publish(bus, `early-${i}`, 'approval.granted');
    await publish(bus, 'barrier', 'approval.denied');
    for (let i = 1; i <= 3; i += 1) await publish(bus, `late-${i}`, 'approval.granted');
    const server = await serveEvents(bus, [ConcurrentHandlers]);
    try {
      await waitFor(() => spans.length === 10);
      await waitFor(() => drained('nest-concurrent'));
    } finally {
      await server.close();
    }
    const overlapAt = (t: number) => spans.filter((span) => span.start <= t && t < span.end).length;
    const mostAtOnce = Math.max(...spans.map((span) => overlapAt(span.start)));
    expect(mostAtOnce).toBeGreaterThan(1);
    expect(mostAtOnce).toBeLessThanOrEqual(3);
    const barrier = spans.find((span) => span.id === 'barrier')!;
    const early = spans.filter((span) => span.id.startsWith('early-'));
    const late = spans.filter((span) => span.id.startsWith('late-'));
    expect(Math.max(...early.map((span) => span.end))).toBeLessThanOrEqual(barrier.start);
    expect(Math.min(...late.map((span) => span.start))).toBeGreaterThanOrEqual(barrier.end);
  });

  it('hands waiting events over in batches of at most `batch`, and acks them so a restart sees none again', async () => {
    const ids = Array.from({ length: 10 }, (_, i) => `batch-${i}`);
    await Promise.all(ids.map((id) => publish(bus, id, 'consent.recorded')));
    const service = await serveEvents(bus, [BatchHandlers]);
    const handled = () => batches.filter((b) => b.handler === 'batches');
    try {
      await waitFor(() => handled().flatMap((b) => b.ids).length >= 10);
      await waitFor(() => drained('nest-batches'));
    } finally {
      await service.close();
    }
    expect(
      handled()
        .flatMap((b) => b.ids)
        .sort(),
    ).toEqual([...ids].sort());
    expect(Math.max(...handled().map((b) => b.ids.length))).toBeLessThanOrEqual(4);
    expect(handled().some((b) => b.ids.length > 1)).toBe(true);

    const restarted = await serveEvents(bus, [BatchHandlers]);
    try {
      await publish(bus, 'batch-late', 'consent.recorded');
      await waitFor(() => handled().flatMap((b) => b.ids).length >= 11);
      await sleep(300);
    } finally {
      await restarted.close();
    }
    expect(
      handled()
        .flatMap((b) => b.ids)
        .slice(10),
    ).toEqual(['batch-late']);
  });

  it('acks and naks the events of a batch by their own outcomes, redelivering only the failed one until maxDeliver', async () => {
    const service = await serveEvents(bus, [BatchHandlers]);
    try {
      await Promise.all(['good-1', 'bad', 'good-2'].map((id) => publish(bus, id, 'consent.purpose_revoked')));
      await waitFor(() => of('outcomes').filter((s) => s.id === 'bad').length >= 3, 15_000);
      await sleep(2_500);
      expect(
        of('outcomes')
          .filter((s) => s.id === 'good-1')
          .map((s) => s.deliveryCount),
      ).toEqual([1]);
      expect(
        of('outcomes')
          .filter((s) => s.id === 'good-2')
          .map((s) => s.deliveryCount),
      ).toEqual([1]);
      expect(
        of('outcomes')
          .filter((s) => s.id === 'bad')
          .map((s) => s.deliveryCount),
      ).toEqual([1, 2, 3]);
    } finally {
      await service.close();
    }
  });

  it('redelivers a whole batch whose handler threw, and acks it once handled', async () => {
    batchThrows = true;
    await Promise.all(['t-1', 't-2', 't-3'].map((id) => publish(bus, id, 'consent.record_revoked')));
    const service = await serveEvents(bus, [BatchHandlers]);
    try {
      await waitFor(() => of('thrown').length >= 3, 15_000);
      await waitFor(() => drained('nest-thrown'));
    } finally {
      await service.close();
    }
    expect(batchThrows).toBe(false);
    expect(
      of('thrown')
        .map((s) => s.id)
        .sort(),
    ).toEqual(['t-1', 't-2', 't-3']);
    expect(Math.max(...of('thrown').map((s) => s.deliveryCount))).toBe(2);
  });

  it('opens the durables a handler decides at start: none when its configuration names none', async () => {
    const service = await serveEvents(bus, [DecidedAtStart], [ReplicaSettings]);
    await service.close();
    expect((await durablesOf('us')).filter((name) => name.startsWith('nest-decided'))).toEqual([]);
  });

  it("reads other regions' streams through durables of its own, opened once a stream exists", async () => {
    const settings = new ReplicaSettings();
    settings.regions = ['us', 'eu', 'ap'];
    // The ap stream does not exist yet: the service starts anyway and opens that durable later.
    const service = await serveEvents(bus, [DecidedAtStart], [{ provide: ReplicaSettings, useValue: settings }]);
    try {
      await publish(bus, 'replica-us', 'directory.subject_status');
      await publish(eu, 'replica-eu', 'directory.subject_status');
      await waitFor(() => of('decided').length === 2);
      await ensureRegionStream(ap.jsm, prefix, 'ap');
      await publish(ap, 'replica-ap', 'directory.subject_status');
      await waitFor(() => of('decided').length === 3, 10_000);
      expect(
        of('decided')
          .map((s) => [s.id, s.durable, s.region])
          .sort(),
      ).toEqual([
        ['replica-ap', 'nest-decided-from-ap', 'ap'],
        ['replica-eu', 'nest-decided-from-eu', 'eu'],
        ['replica-us', 'nest-decided-from-us', 'us'],
      ]);
      const info = await bus.jsm.consumers.info(regionStreamName(prefix, 'eu'), 'nest-decided-from-eu');
      expect(info.config.filter_subject).toBe(`${prefix}.eu.evt.directory.subject_status`);
      expect(info.config.max_deliver).toBe(-1);
    } finally {
      await service.close();
    }
  });

  it('fans an event out to every process listening, without a durable', async () => {
    const one = await serveEvents(bus, [Listeners]);
    const two = await serveEvents(bus, [Listeners]);
    try {
      await bus.nc.flush();
      await publish(bus, 'rotated-1', 'keys.signing_key_rotated');
      await waitFor(() => of('fanout').length === 2);
      expect(of('fanout').map((s) => s.id)).toEqual(['rotated-1', 'rotated-1']);
      expect(await durablesOf('us')).not.toContainEqual(expect.stringMatching(/rotated/));
    } finally {
      await one.close();
      await two.close();
    }
    await publish(bus, 'rotated-2', 'keys.signing_key_rotated');
    await sleep(300);
    expect(of('fanout')).toHaveLength(2);
  });
});
