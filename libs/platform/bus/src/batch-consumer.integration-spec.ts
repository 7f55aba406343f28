import { TEST_NATS_URL, deleteTestStreams, uniqueBusPrefix, waitFor } from '@svc/testing';
import { regionStreamName } from '@svc/contracts';
import { BatchConsumer } from './batch-consumer';
import { BusConnection } from './bus-connection';
import type { DeliveredEvent } from './durable-consumer';
import { EventPublisher } from './event-publisher';
import { ensureRegionStream } from './streams';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('bus: batch consumer (real NATS)', () => {
  const prefix = uniqueBusPrefix();
  let bus: BusConnection;

  beforeAll(async () => {
    bus = await BusConnection.connect({ url: TEST_NATS_URL, prefix, region: 'us', name: 'batch-consumer-test' });
    await ensureRegionStream(bus.jsm, prefix, 'us');
  });
  afterAll(async () => {
    await bus?.close();
    await deleteTestStreams(prefix);
  });

  const subject = (name: string) => `${prefix}.us.evt.test.${name}`;
  const publish = (name: string, ids: string[]) =>
    new EventPublisher(bus).publishAll(ids.map((id) => ({ id, eventType: `test.${name}`, subject: subject(name), data: new Uint8Array([1]) })));
  const drained = async (durable: string) => {
    const info = await bus.jsm.consumers.info(regionStreamName(prefix, 'us'), durable);
    return info.num_ack_pending === 0 && info.num_pending === 0;
  };

  it('hands waiting messages over in batches of at most maxBatch, and acks them so a restart sees none again', async () => {
    const ids = Array.from({ length: 10 }, (_, i) => `batch-${i}`);
    await publish('batches', ids);
    const batches: string[][] = [];
    const options = { durable: 'batches', filterSubject: subject('batches'), maxBatch: 4 };
    const consumer = new BatchConsumer(bus, options, () => undefined);
    await consumer.start(async (events) => {
      batches.push(events.map((e) => e.id));
      await sleep(20);
    });
    await waitFor(() => batches.flat().length >= 10);
    await waitFor(() => drained('batches'));
    await consumer.stop();
    expect(batches.flat().sort()).toEqual([...ids].sort());
    expect(Math.max(...batches.map((b) => b.length))).toBeLessThanOrEqual(4);
    expect(batches.some((b) => b.length > 1)).toBe(true);

    const again: string[] = [];
    const restarted = new BatchConsumer(bus, options, () => undefined);
    await restarted.start(async (events) => {
      again.push(...events.map((e) => e.id));
    });
    await publish('batches', ['batch-late']);
    await waitFor(() => again.length >= 1);
    await restarted.stop();
    expect(again).toEqual(['batch-late']);
  });

  it('acks and naks each event by its own outcome, redelivering only the failed one until maxDeliver', async () => {
    const seen: Array<[string, number]> = [];
    const failures: Array<[string, string]> = [];
    const consumer = new BatchConsumer(bus, { durable: 'outcomes', filterSubject: subject('outcomes'), maxDeliver: 3, ackWaitMs: 1_000 }, (error, events) =>
      failures.push(...events.map((e): [string, string] => [e.id, (error as Error).message])),
    );
    await consumer.start((events) =>
      Promise.allSettled(
        events.map(async (e: DeliveredEvent) => {
          seen.push([e.id, e.deliveryCount]);
          if (e.id === 'bad') throw new Error('cannot handle');
        }),
      ),
    );
    await publish('outcomes', ['good-1', 'bad', 'good-2']);
    await waitFor(() => seen.filter(([id]) => id === 'bad').length >= 3, 15_000);
    await sleep(2_500);
    await consumer.stop();
    expect(seen.filter(([id]) => id === 'good-1')).toEqual([['good-1', 1]]);
    expect(seen.filter(([id]) => id === 'good-2')).toEqual([['good-2', 1]]);
    expect(seen.filter(([id]) => id === 'bad').map(([, n]) => n)).toEqual([1, 2, 3]);
    expect(failures).toEqual([
      ['bad', 'cannot handle'],
      ['bad', 'cannot handle'],
      ['bad', 'cannot handle'],
    ]);
  });

  it('redelivers a whole batch whose handler threw, and acks it once handled', async () => {
    let failing = true;
    const handled: Array<[string, number]> = [];
    const failedBatches: number[] = [];
    const consumer = new BatchConsumer(bus, { durable: 'thrown', filterSubject: subject('thrown'), ackWaitMs: 1_000 }, (_error, events) => failedBatches.push(events.length));
    await publish('thrown', ['t-1', 't-2', 't-3']);
    await consumer.start(async (events) => {
      if (failing) {
        failing = false;
        throw new Error('database down');
      }
      handled.push(...events.map((e): [string, number] => [e.id, e.deliveryCount]));
    });
    await waitFor(() => handled.length >= 3, 15_000);
    await waitFor(() => drained('thrown'));
    await consumer.stop();
    expect(failedBatches.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(1);
    expect(handled.map(([id]) => id).sort()).toEqual(['t-1', 't-2', 't-3']);
    expect(Math.max(...handled.map(([, n]) => n))).toBe(2);
  });
});
