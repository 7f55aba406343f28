import { Controller } from '@nestjs/common';
import { Ctx, Payload } from '@nestjs/microservices';
import { regionStreamName } from '@svc/contracts';
import { TEST_NATS_URL, deleteTestStreams, uniqueBusPrefix, waitFor } from '@svc/testing';
import { BusConnection } from './bus-connection';
import { EventPublisher } from './event-publisher';
import { EventConsumer, JetStreamContext, serveEvents } from './nest-events';
import type { BatchOutcomes } from './batch-consumer';
import type { DeliveredEvent } from './pull-consumer';
import { ensureRegionStream } from './streams';

const seen: Array<{ handler: string; id: string; deliveryCount: number; durable?: string }> = [];

@Controller()
class SingleHandlers {
  @EventConsumer({ durable: 'nest-acked', types: 'test.acked' })
  async acked(@Payload() event: DeliveredEvent, @Ctx() context: JetStreamContext): Promise<void> {
    seen.push({ handler: 'acked', id: event.id, deliveryCount: event.deliveryCount, durable: context.getDurable() });
  }

  @EventConsumer({ durable: 'nest-bounded', types: 'test.bounded' }, { maxDeliver: 3, ackWaitMs: 1_000 })
  async bounded(event: DeliveredEvent): Promise<void> {
    seen.push({ handler: 'bounded', id: event.id, deliveryCount: event.deliveryCount });
    throw new Error('always fails');
  }
}

@Controller()
class BatchHandlers {
  @EventConsumer({ durable: 'nest-batch', types: 'test.batch.>' }, { batch: 16, maxDeliver: 3, ackWaitMs: 1_000 })
  async batch(events: readonly DeliveredEvent[]): Promise<BatchOutcomes> {
    for (const event of events) seen.push({ handler: 'batch', id: event.id, deliveryCount: event.deliveryCount });
    return events.map((event) => (event.subject.endsWith('.bad') ? { status: 'rejected', reason: new Error('bad') } : { status: 'fulfilled', value: undefined }));
  }
}

@Controller()
class ReplicaHandlers {
  @EventConsumer({ durable: 'nest-replica', types: 'test.replica', region: 'eu' })
  async replica(event: DeliveredEvent): Promise<void> {
    seen.push({ handler: 'replica', id: event.id, deliveryCount: event.deliveryCount });
  }
}

describe('JetStream events as a Nest transport: @EventConsumer handlers (real NATS)', () => {
  const prefix = uniqueBusPrefix();
  let bus: BusConnection;
  let eu: BusConnection;
  const of = (handler: string) => seen.filter((s) => s.handler === handler);
  const publish = (on: BusConnection, id: string, type: string) =>
    new EventPublisher(on).publish({ id, eventType: type, subject: `${prefix}.${on.region}.evt.${type}`, data: new Uint8Array([1]) });

  beforeAll(async () => {
    bus = await BusConnection.connect({ url: TEST_NATS_URL, prefix, region: 'us', name: 'events-test' });
    eu = await BusConnection.connect({ url: TEST_NATS_URL, prefix, region: 'eu', name: 'events-test-eu' });
    await ensureRegionStream(bus.jsm, prefix, 'us');
    await ensureRegionStream(eu.jsm, prefix, 'eu');
  });
  afterAll(async () => {
    await bus?.close();
    await eu?.close();
    await deleteTestStreams(prefix);
  });

  it('acks a handled event once the handler resolved, so a restarted service does not see it again', async () => {
    const first = await serveEvents(bus, [SingleHandlers]);
    await publish(bus, 'acked-1', 'test.acked');
    await waitFor(() => of('acked').length === 1);
    await first.close();
    const second = await serveEvents(bus, [SingleHandlers]);
    await publish(bus, 'acked-2', 'test.acked');
    await waitFor(() => of('acked').length === 2);
    await new Promise((resolve) => setTimeout(resolve, 500));
    await second.close();
    expect(of('acked')).toEqual([
      { handler: 'acked', id: 'acked-1', deliveryCount: 1, durable: 'nest-acked' },
      { handler: 'acked', id: 'acked-2', deliveryCount: 1, durable: 'nest-acked' },
    ]);
  });

  it('redelivers a failing event with backoff and gives up after maxDeliver', async () => {
    const service = await serveEvents(bus, [SingleHandlers]);
    try {
      await publish(bus, 'bounded-1', 'test.bounded');
      await waitFor(() => of('bounded').length >= 3, 15_000);
      await new Promise((resolve) => setTimeout(resolve, 2_500));
      expect(of('bounded').map((s) => s.deliveryCount)).toEqual([1, 2, 3]);
    } finally {
      await service.close();
    }
  });

  it('acks and naks the events of a batch by their own outcomes', async () => {
    const service = await serveEvents(bus, [BatchHandlers]);
    try {
      await publish(bus, 'batch-good', 'test.batch.good');
      await publish(bus, 'batch-bad', 'test.batch.bad');
      await waitFor(() => of('batch').filter((s) => s.id === 'batch-bad').length >= 2, 15_000);
      expect(of('batch').filter((s) => s.id === 'batch-good')).toEqual([{ handler: 'batch', id: 'batch-good', deliveryCount: 1 }]);
    } finally {
      await service.close();
    }
  });

  it("reads another region's stream through a durable of its own", async () => {
    const service = await serveEvents(bus, [ReplicaHandlers]);
    try {
      await publish(eu, 'replica-1', 'test.replica');
      await waitFor(() => of('replica').length === 1);
      const info = await bus.jsm.consumers.info(regionStreamName(prefix, 'eu'), 'nest-replica');
      expect(info.config.filter_subject).toBe(`${prefix}.eu.evt.test.replica`);
    } finally {
      await service.close();
    }
  });
});
