import { Controller, Injectable } from '@nestjs/common';
import { EventFanout, type DeliveredEvent } from '@svc/bus';
import { decodeEvent } from '@svc/contracts';
import { DocumentCache, type CachedDocument } from '@svc/server';

/** Capability documents kept in memory per process (least recently used dropped past it). */
export const CAPABILITY_CACHE_MAX_ENTRIES = 10_000;
/** Backstop age of a cached capability document, ms: a missed invalidation lasts at most this long. */
export const CAPABILITY_CACHE_MAX_AGE_MS = 30_000;

/** A discoverable agent's capability document as answered, with the application it belongs to. */
export interface CachedCapabilityDocument extends CachedDocument {
  applicationId: string;
  versionId: string;
}

/**
 * The serialised capability documents of this process, per agent (an agent belongs to one
 * application), computed once per change. Dropped on every change that affects them: a capability
 * version published (at once in the publishing process, by fan-out in the others), an
 * application's mode or capabilities_published changed (fan-out of `application.updated`).
 * Undiscoverable answers are not cached.
 */
@Injectable()
export class CapabilityDocuments {
  readonly cache = new DocumentCache<CachedCapabilityDocument>({
    maxEntries: CAPABILITY_CACHE_MAX_ENTRIES,
    maxAgeMs: CAPABILITY_CACHE_MAX_AGE_MS,
  });

  agentChanged(agentId: string): void {
    this.cache.delete(agentId);
  }

  /**
   * A version of the agent was published: a cached document of that very version stays (the
   * publishing process already served it); any other goes.
   */
  versionPublished(agentId: string, versionId: string): void {
    this.cache.deleteWhere((document, key) => key === agentId && document.versionId !== versionId);
  }

  applicationChanged(applicationId: string): void {
    this.cache.deleteWhere((document) => document.applicationId === applicationId);
  }
}

/**
 * Hears the changes of other processes and instances: every holder of the cache must see them, so
 * these are fan-out listeners (no durable); the cache's maximum age covers a missed message. An
 * unreadable event empties the cache.
 */
@Controller()
export class CapabilityDocumentInvalidations {
  constructor(private readonly documents: CapabilityDocuments) {}

  @EventFanout('oap.capabilities_published')
  async capabilitiesPublished(event: DeliveredEvent): Promise<void> {
    try {
      const published = decodeEvent('oap.capabilities_published', event.data);
      this.documents.versionPublished(published.agentId, published.versionId);
    } catch {
      this.documents.cache.clear();
    }
  }

  @EventFanout('application.updated')
  async applicationUpdated(event: DeliveredEvent): Promise<void> {
    try {
      this.documents.applicationChanged(decodeEvent('application.updated', event.data).applicationId);
    } catch {
      this.documents.cache.clear();
    }
  }
}
