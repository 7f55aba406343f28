import { timestampDate, type Timestamp } from '@bufbuild/protobuf/wkt';
import type { EventMeta } from '@svc/contracts';
import { UnreceiptableRecord } from './consent-record-input';

/** ISO time of `timestamp`, else when the event occurred; refuses an event that states neither. */
export function eventTime(timestamp: Timestamp | undefined, meta: EventMeta | undefined): string {
  const at = timestamp ?? meta?.occurredAt;
  if (!at) throw new UnreceiptableRecord('the event states no time');
  return timestampDate(at).toISOString();
}
