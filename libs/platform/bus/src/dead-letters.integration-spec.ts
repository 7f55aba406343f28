import { Controller } from '@nestjs/common';
import { deadLetterStreamName, deadLetterSubject, regionStreamName } from '@svc/contracts';
import { TEST_NATS_URL, deleteTestStreams, uniqueBusPrefix, waitFor } from '@svc/testing';
import { AckPolicy, DeliverPolicy } from 'nats';
import { BusConnection } from './bus-connection';
import { EventPublisher } from './event-publisher';
import { EventConsumer, serveEvents, type DeliveredEvent } from './nest-events';
import { ensureRegionStream } from './streams';

const handled: Array<{ id: string; deliveryCount: number; at: number }> = [];
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

@Controller()
class PoisonHandlers {
  /** Fails on every delivery of a poison event; handles every other one. */
  @EventConsumer({ durable: 'dlq-records', types: 'consent.recorded' }, { maxDeliver: 3, ackWaitMs: 1_000 })
  async records(event: DeliveredEvent): Promise<void> {
    handled.push({ id: event.id, deliveryCount: event.deliveryCount, at: Date.now() });
    if (event.id.startsWith('poison')) throw new Error('cannot parse this payload');
  }
}

/**
 * Issue 20 item 3 (poison message), on the real NATS server with a bus prefix of its own: an event
 * whose handler always fails is delivered `max_deliver` times, then lands on the region's
 * dead-letter subject (kept by the dead-letter stream) with where and why it died, the
 * `bus_dead_letters_total` observer is told once, and the events published after it are handled
 * while it is still being retried: the stream is not blocked.
 */
describe('a poison message (max_deliver, dead-letter subject, alert metric)', () => {
  const prefix = uniqueBusPrefix();
  let bus: BusConnection;

  beforeAll(async () => {
    bus = await BusConnection.connect({ url: TEST_NATS_URL, prefix, region: 'us', name: 'dead-letters-test' });
    await ensureRegionStream(bus.jsm, prefix, 'us');
  });
  afterAll(async () => {
    await bus?.close();
    await deleteTestStreams(prefix);
  });

  it('stops after max_deliver, lands on the dead-letter subject with the metric told, and never blocks the events behind it', async () => {
    const counted: string[] = [];
    const logged: Array<{ message: string; context: Record<string, unknown> }> = [];
    const publisher = new EventPublisher(bus);
    const publish = (id: string) =>
      publisher.publishAll([
        {
          id,
          eventType: 'consent.recorded',
          subject: `${prefix}.us.evt.consent.recorded`,
          data: new TextEncoder().encode(`payload of ${id}`),
        },
      ]);
    await publish('poison-1');
    for (let i = 0; i < 5; i += 1) await publish(`good-${i}`);
    const started = Date.now();
    const service = await serveEvents(
      bus,
      [PoisonHandlers],
      [],
      { error: (message, context) => logged.push({ message, context }) },
      { deadLettered: (durable) => counted.push(durable) },
    );
    try {
      // Not blocked: every good event is handled while the poison one waits for its redelivery.
      await waitFor(() => handled.filter((h) => h.id.startsWith('good')).length === 5, 10_000);
      const poisonDeliveries = () => handled.filter((h) => h.id === 'poison-1');
      const goodDoneAt = Math.max(...handled.filter((h) => h.id.startsWith('good')).map((h) => h.at));
      expect(poisonDeliveries().length).toBeLessThan(3);
      expect(goodDoneAt - started).toBeLessThan(5_000);

      await waitFor(() => counted.length === 1, 20_000);
      await sleep(2_500);
      expect(poisonDeliveries().map((h) => h.deliveryCount)).toEqual([1, 2, 3]);
      expect(counted).toEqual(['dlq-records']);
      expect(logged.at(-1)).toMatchObject({
        message: 'event dead-lettered: its handler failed on the last delivery allowed',
        context: {
          durable: 'dlq-records',
          eventId: 'poison-1',
          deliveryCount: 3,
          stream: regionStreamName(prefix, 'us'),
          deadLetterSubject: deadLetterSubject(prefix, 'us', 'dlq-records'),
        },
      });
      expect(logged.at(-1)?.context.deadLetterCopy).toBeUndefined();

      // The dead letter: the original bytes and id, plus where and why it died.
      const stream = deadLetterStreamName(prefix, 'us');
      expect((await bus.jsm.streams.info(stream)).state.messages).toBe(1);
      await bus.jsm.consumers.add(stream, { durable_name: 'inspect', ack_policy: AckPolicy.Explicit, deliver_policy: DeliverPolicy.All });
      const letter = await (await bus.js.consumers.get(stream, 'inspect')).next({ expires: 5_000 });
      expect(letter?.subject).toBe(deadLetterSubject(prefix, 'us', 'dlq-records'));
      expect(new TextDecoder().decode(letter?.data)).toBe('payload of poison-1');
      expect(letter?.headers?.get('Nats-Msg-Id')).toBe('poison-1:dlq-records');
      expect(letter?.headers?.get('Svc-Event-Type')).toBe('consent.recorded');
      expect(letter?.headers?.get('Svc-Dead-Letter-Durable')).toBe('dlq-records');
      expect(letter?.headers?.get('Svc-Dead-Letter-Stream')).toBe(regionStreamName(prefix, 'us'));
      expect(letter?.headers?.get('Svc-Dead-Letter-Deliveries')).toBe('3');
      expect(letter?.headers?.get('Svc-Dead-Letter-Error')).toBe('cannot parse this payload');
      letter?.ack();

      // The durable goes on: a later event is handled, the poison one is never delivered again.
      await publish('good-after');
      await waitFor(() => handled.some((h) => h.id === 'good-after'), 10_000);
      await sleep(1_500);
      expect(poisonDeliveries()).toHaveLength(3);
      const info = await bus.jsm.consumers.info(regionStreamName(prefix, 'us'), 'dlq-records');
      expect(info.num_pending + info.num_ack_pending).toBe(0);
      expect(counted).toHaveLength(1);
    } finally {
      await service.close();
    }
  }, 60_000);
});
