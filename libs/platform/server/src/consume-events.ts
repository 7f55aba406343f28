import { type BusConnection, DurableConsumer, type EventHandler } from '@svc/bus';
import { eventSubject } from '@svc/contracts';
import type { Logger } from '@svc/telemetry';

/**
 * Starts a durable consumer of this region's events whose type matches `typePattern` (an event
 * type, or a NATS wildcard such as `approval.>`), logging handler failures before redelivery.
 * Stop the returned consumer on application shutdown. `maxDeliver` -1 keeps redelivering for
 * consumers whose handler throws only on transient failures and must never drop an event.
 */
export async function consumeEvents(
  bus: BusConnection,
  logger: Logger,
  durable: string,
  typePattern: string,
  handler: EventHandler,
  options: { maxDeliver?: number } = {},
): Promise<DurableConsumer> {
  const consumer = new DurableConsumer(
    bus,
    { durable, filterSubject: eventSubject(bus.prefix, bus.region, typePattern), ...options },
    { error: (message, context) => logger.error(context, message) },
  );
  await consumer.start(handler);
  return consumer;
}
