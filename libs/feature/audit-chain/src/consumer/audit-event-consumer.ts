import { Controller } from '@nestjs/common';
import { EventBatchConsumer, type BatchOutcomes, type DeliveredEvent } from '@svc/bus';
import { isAuditedEventType } from '@svc/contracts';
import { AuditChain } from '../audit-chain.runtime';
import type { AuditEntryInput } from '../chain/audit-entry';
import { summariseEvent, type SourceEvent } from '../chain/event-summary';

/**
 * Consumes the region's whole event stream (`<prefix>.<region>.evt.>`) with a durable batch
 * consumer and explicit acks, and appends the events the catalogue of `@svc/contracts` declares
 * `audited` (a type this build does not know is not appended).
 *
 * The events of a batch (up to 512) are appended concurrently so that they meet in the appender's
 * group commits; each is acked only after its entry committed, and a failed one alone is
 * redelivered — never given up on (`maxDeliver` -1): an audited event must end up in the
 * chain, however long Postgres is down. Redelivery is harmless: the entry's source id is the
 * event id (Nats-Msg-Id), unique in the chain, so a second delivery resolves to the first entry.
 * Other events are acked untouched. The transport stops delivering before the appender drains
 * at shutdown.
 */
@Controller()
export class AuditEventConsumer {
  constructor(private readonly chain: AuditChain) {}

  @EventBatchConsumer({ durable: 'audit-chain', types: '>' }, { maxDeliver: -1, batch: 512 })
  async consume(events: readonly DeliveredEvent[]): Promise<BatchOutcomes> {
    return Promise.allSettled(events.map((event) => this.handle(event)));
  }

  private async handle(event: DeliveredEvent): Promise<void> {
    if (!isAuditedEventType(event.eventType)) return;
    await this.chain.appender.appendOne(toEntry({ id: event.id, eventType: event.eventType, data: event.data }));
  }
}

/** The entry for an event; an undecodable payload is still recorded (as base64), never dropped. */
function toEntry(event: SourceEvent): AuditEntryInput {
  try {
    return summariseEvent(event);
  } catch {
    return {
      type: event.eventType,
      sourceEventId: event.id,
      data: { event_id: event.id, encoding: 'protobuf_base64', undecodable: true, payload: Buffer.from(event.data).toString('base64') },
    };
  }
}
