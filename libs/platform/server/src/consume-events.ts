import { type BusConnection, DurableConsumer, type EventHandler } from '@svc/bus';
import { eventSubject } from '@svc/contracts';
import type { Logger } from '@svc/telemetry';

/**
 * Starts a durable consumer of this region's events whose type matches `typePattern` (an event
 * type, or a NATS wildcard such as `approval.>`), logging handler failures before redelivery.
 * Stop the returned consumer on application shutdown.
 */
export async function consumeEvents(
  bus: BusConnection,
  logger: Logger,
  durable: string,
  typePattern: string,
  handler: EventHandler,
): Promise<DurableConsumer> {
  const consumer = new DurableConsumer(
    bus,
    { durable, filterSubject: eventSubject(bus.prefix, bus.region, typePattern) },
    { error: (message, context) => logger.error(context, message) },
  );
  await consumer.start(handler);
  return consumer;
}
