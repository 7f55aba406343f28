import { createHash } from 'node:crypto';

/** A public document serialised once: its exact bytes and their strong ETag. */
export interface CachedDocument {
  body: string;
  /** Strong entity tag: the quoted base64url SHA-256 of {@link body}. */
  etag: string;
}

/** Serialises a document's body once, with its strong ETag. */
export function cachedDocumentOf(body: string): CachedDocument {
  return { body, etag: `"${createHash('sha256').update(body).digest('base64url')}"` };
}

/** RFC 9110 §13.1.2: `*` or a list of entity tags; If-None-Match compares weakly. */
export function ifNoneMatches(header: string | string[] | undefined, etag: string): boolean {
  const value = Array.isArray(header) ? header.join(',') : header;
  if (!value) return false;
  if (value === etag) return true;
  if (value.trim() === '*') return true;
  return value.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}

/** Size and age bounds of a {@link DocumentCache}. */
export interface DocumentCacheOptions {
  /** Most entries kept; the least recently used is dropped past it. */
  maxEntries: number;
  /** Age after which an entry is read again, ms: the backstop for a missed invalidation. */
  maxAgeMs: number;
  /** Time source, ms. Default `Date.now`. */
  now?: () => number;
}

interface Entry<V> {
  value: V;
  storedAt: number;
}

/**
 * In-memory cache of public documents: least-recently-used bounded, with a maximum age as a
 * backstop for invalidations a process misses. A value loaded while an invalidation happened is
 * not stored (it may predate the change): {@link load} compares the generation it started under.
 */
export class DocumentCache<V> {
  private readonly entries = new Map<string, Entry<V>>();
  private readonly now: () => number;
  private generation = 0;
  /** The most recently used key, or undefined: reading it again leaves the order as it is. */
  private newest: string | undefined;

  constructor(private readonly options: DocumentCacheOptions) {
    this.now = options.now ?? Date.now;
  }

  get size(): number {
    return this.entries.size;
  }

  /** The fresh value of `key`, or undefined. */
  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (this.now() - entry.storedAt >= this.options.maxAgeMs) {
      this.entries.delete(key);
      if (key === this.newest) this.newest = undefined;
      return undefined;
    }
    // Most recently used last: Map keeps insertion order. A document read over and over (the
    // common case of a public read) is already last, and moving it would churn the map.
    if (key !== this.newest) {
      this.entries.delete(key);
      this.entries.set(key, entry);
      this.newest = key;
    }
    return entry.value;
  }

  /**
   * The cached value of `key`, or the loaded one (stored when it is defined and no invalidation
   * happened while it loaded).
   */
  async load(key: string, loader: () => Promise<V | undefined>): Promise<V | undefined> {
    const cached = this.get(key);
    if (cached !== undefined) return cached;
    const generation = this.generation;
    const value = await loader();
    if (value !== undefined && generation === this.generation) this.set(key, value);
    return value;
  }

  set(key: string, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, { value, storedAt: this.now() });
    this.newest = key;
    while (this.entries.size > this.options.maxEntries) {
      const oldest = this.entries.keys().next();
      if (oldest.done) break;
      this.entries.delete(oldest.value);
      if (oldest.value === this.newest) this.newest = undefined;
    }
  }

  /** Drops `key`. */
  delete(key: string): void {
    this.generation += 1;
    this.entries.delete(key);
    if (key === this.newest) this.newest = undefined;
  }

  /** Drops every entry whose value matches. */
  deleteWhere(matches: (value: V, key: string) => boolean): void {
    this.generation += 1;
    for (const [key, entry] of this.entries) if (matches(entry.value, key)) this.entries.delete(key);
    this.newest = undefined;
  }

  clear(): void {
    this.generation += 1;
    this.entries.clear();
    this.newest = undefined;
  }
}
