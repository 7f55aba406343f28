import { Controller, Injectable } from '@nestjs/common';
import { fromBinary } from '@bufbuild/protobuf';
import { EventFanout, RpcClient, type DeliveredEvent } from '@svc/bus';
import { ApiTokenChangedSchema } from '@svc/contracts';
import { credentialOfReply, ownerUnavailable } from './credential-reply';
import type { ResolvedCredential } from './principal';

/** Turns a presented credential into the application it belongs to, or undefined when unknown. */
export abstract class CredentialResolver {
  abstract resolveApiToken(sha256Hex: string): Promise<ResolvedCredential | undefined>;
  abstract resolvePublishableKey(key: string): Promise<ResolvedCredential | undefined>;
  /**
   * A trust pairing's counterparty token (`ctp_<region>_…`), asked of the region that issued it.
   * Never cached: a revoked pairing's token stops working with the revocation's commit.
   */
  abstract resolveCounterpartyToken(sha256Hex: string, region: string): Promise<ResolvedCredential | undefined>;
}

/** Positive answers are cached this long: a revoked token stops working within this window. */
export const CREDENTIAL_CACHE_MS = 5_000;

/** Default of `CREDENTIAL_STALE_IF_ERROR_SECONDS`. */
export const CREDENTIAL_STALE_IF_ERROR_DEFAULT_SECONDS = 300;
/** Upper bound of `CREDENTIAL_STALE_IF_ERROR_SECONDS`: a stale answer is never served longer. */
export const CREDENTIAL_STALE_IF_ERROR_MAX_SECONDS = 3_600;

export interface CredentialCacheOptions {
  /**
   * How long after its fresh window a known credential may still be served while its owner cannot
   * be asked (bus or owner unavailable), ms. 0 disables it; it is never unlimited.
   */
  staleIfErrorMs: number;
  /** Milliseconds since the epoch; the wall clock unless a test controls it. */
  now?: () => number;
}

interface CacheEntry {
  value: ResolvedCredential;
  fetchedAt: number;
  /** The last refresh failed: serve the entry at once while one refresh retries in the background. */
  failing: boolean;
}

/**
 * Asks decision-gateway (the owner of credentials) over request/reply — in-process when it runs
 * in the same process (the RPC client is local first), over NATS otherwise. Only the token's
 * SHA-256 digest crosses the bus. Known credentials are cached briefly and evicted as soon as a
 * revocation event arrives; unknown ones are never cached. When the owner cannot be asked, a known
 * credential's last answer is served for up to `staleIfErrorMs` more (stale-while-error), so a bus
 * outage does not turn every authenticated call into 503; a credential revoked during such an
 * outage keeps working until the bus returns or that bound passes.
 */
@Injectable()
export class RpcCredentialResolver extends CredentialResolver {
  private readonly cache = new Map<string, CacheEntry>();
  private readonly refreshing = new Map<string, Promise<ResolvedCredential | undefined>>();
  private readonly staleIfErrorMs: number;
  private readonly now: () => number;

  constructor(
    private readonly rpc: RpcClient,
    options: CredentialCacheOptions = { staleIfErrorMs: CREDENTIAL_STALE_IF_ERROR_DEFAULT_SECONDS * 1_000 },
  ) {
    super();
    this.staleIfErrorMs = Math.min(Math.max(0, options.staleIfErrorMs), CREDENTIAL_STALE_IF_ERROR_MAX_SECONDS * 1_000);
    this.now = options.now ?? Date.now;
  }

  /** Evicts a revoked token as soon as its `application.api_token_changed` arrives; an unreadable one empties the cache. */
  apiTokenChanged(data: Uint8Array): void {
    try {
      const event = fromBinary(ApiTokenChangedSchema, data);
      if (event.change === 'revoked') this.evict(event.tokenId);
    } catch {
      this.cache.clear();
    }
  }

  private evict(credentialId: string): void {
    for (const [key, entry] of this.cache) if (entry.value.credentialId === credentialId) this.cache.delete(key);
  }

  resolveApiToken(sha256Hex: string): Promise<ResolvedCredential | undefined> {
    return this.cached(`t:${sha256Hex}`, () => this.ask({ credential: { case: 'apiTokenSha256Hex', value: sha256Hex } }, 'api_token'));
  }

  resolvePublishableKey(key: string): Promise<ResolvedCredential | undefined> {
    return this.cached(`p:${key}`, () => this.ask({ credential: { case: 'publishableKey', value: key } }, 'publishable_key'));
  }

  async resolveCounterpartyToken(sha256Hex: string, region: string): Promise<ResolvedCredential | undefined> {
    const reply = await this.rpc
      .inRegion(region)
      .call('gateway.resolve_counterparty_token', { credential: { case: 'counterpartyTokenSha256Hex', value: sha256Hex } });
    if (!reply.found) return undefined;
    return { ...credentialOfReply('counterparty_token', reply), counterpartyApplicationId: reply.counterpartyApplicationId };
  }

  private async cached(key: string, load: () => Promise<ResolvedCredential | undefined>): Promise<ResolvedCredential | undefined> {
    const hit = this.cache.get(key);
    const now = this.now();
    if (hit && now - hit.fetchedAt < CREDENTIAL_CACHE_MS) return hit.value;
    const servableStale = hit && now - hit.fetchedAt < CREDENTIAL_CACHE_MS + this.staleIfErrorMs ? hit : undefined;
    if (servableStale?.failing) {
      // The owner did not answer last time: answer now from the cache, retry once in the background.
      void this.refresh(key, load).catch(() => undefined);
      return servableStale.value;
    }
    try {
      return await this.refresh(key, load);
    } catch (error) {
      if (!servableStale || !ownerUnavailable(error)) throw error;
      servableStale.failing = true;
      return servableStale.value;
    }
  }

  /** One load per key at a time; stores its answer. */
  private refresh(key: string, load: () => Promise<ResolvedCredential | undefined>): Promise<ResolvedCredential | undefined> {
    const inFlight = this.refreshing.get(key);
    if (inFlight) return inFlight;
    const loading = load()
      .then((value) => {
        if (value) {
          if (this.cache.size > 10_000) this.cache.clear();
          this.cache.set(key, { value, fetchedAt: this.now(), failing: false });
        } else {
          this.cache.delete(key);
        }
        return value;
      })
      .finally(() => this.refreshing.delete(key));
    this.refreshing.set(key, loading);
    return loading;
  }

  private async ask(
    request: { credential: { case: 'apiTokenSha256Hex' | 'publishableKey'; value: string } },
    kind: ResolvedCredential['kind'],
  ): Promise<ResolvedCredential | undefined> {
    const reply = await this.rpc.call('gateway.resolve_credential', request);
    return reply.found ? credentialOfReply(kind, reply) : undefined;
  }
}

/**
 * Tells the process's credential cache about token changes: every process holding a cache must
 * hear every revocation, so this is a fan-out listener (no durable); a missed message is covered
 * by the cache's 5 s expiry.
 */
@Controller()
export class CredentialRevocations {
  constructor(private readonly credentials: CredentialResolver) {}

  @EventFanout('application.api_token_changed')
  async apiTokenChanged(event: DeliveredEvent): Promise<void> {
    if (this.credentials instanceof RpcCredentialResolver) this.credentials.apiTokenChanged(event.data);
  }
}
