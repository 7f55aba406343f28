import { Injectable } from '@nestjs/common';
import { RpcClient } from './nest-rpc';

/** What a producer stamps on an event as its `application` (svc.events.v1.ApplicationFacts). */
export interface StampedApplicationFacts {
  name: string;
  jurisdiction: string;
}

/**
 * The application facts a receipt names (display name, receipt jurisdiction) for services that do
 * not own applications and stamp them on their events: read from decision-gateway
 * (`gateway.get_application`) and kept briefly, so a burst of writes of one application asks once.
 * Best effort: when decision-gateway does not answer quickly the write goes on without the facts
 * (the event then omits them and its consumer asks itself), so writes never wait on it.
 */
@Injectable()
export class ApplicationFactsReader {
  /** How long facts are reused, in ms: a renamed application shows its new name on receipts within this. */
  static readonly CACHE_MS = 30_000;
  /** After a failed read, how long writes go on without asking again, in ms. */
  static readonly FAILURE_BACKOFF_MS = 5_000;
  /** A write waits at most this long for the facts, in ms. */
  static readonly TIMEOUT_MS = 1_000;
  private static readonly MAX_ENTRIES = 10_000;

  private readonly cache = new Map<string, { facts: StampedApplicationFacts | undefined; until: number }>();

  constructor(private readonly rpc: RpcClient) {}

  /** The facts of an application (empty for an unknown one), or undefined when they could not be read now. */
  async of(applicationId: string): Promise<StampedApplicationFacts | undefined> {
    const hit = this.cache.get(applicationId);
    if (hit && hit.until > Date.now()) return hit.facts;
    let facts: StampedApplicationFacts | undefined;
    try {
      const reply = await this.rpc.call('gateway.get_application', { applicationId }, ApplicationFactsReader.TIMEOUT_MS);
      facts = reply.found
        ? { name: reply.name, jurisdiction: reply.jurisdiction === 'unspecified' ? '' : reply.jurisdiction }
        : { name: '', jurisdiction: '' };
    } catch {
      facts = undefined;
    }
    if (this.cache.size >= ApplicationFactsReader.MAX_ENTRIES) this.cache.clear();
    const ttl = facts ? ApplicationFactsReader.CACHE_MS : ApplicationFactsReader.FAILURE_BACKOFF_MS;
    this.cache.set(applicationId, { facts, until: Date.now() + ttl });
    return facts;
  }

  /** The facts of each distinct application of a batch (absent ones could not be read now). */
  async ofAll(applicationIds: Iterable<string>): Promise<Map<string, StampedApplicationFacts>> {
    const distinct = [...new Set(applicationIds)];
    const read = await Promise.all(distinct.map(async (id) => [id, await this.of(id)] as const));
    return new Map(read.filter((entry): entry is readonly [string, StampedApplicationFacts] => entry[1] !== undefined));
  }
}
