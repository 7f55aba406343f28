import { Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { fromBinary } from '@bufbuild/protobuf';
import { BusConnection, RpcClient } from '@svc/bus';
import { ApiTokenChangedSchema, eventSubject } from '@svc/contracts';
import type { Subscription } from 'nats';
import type { ResolvedCredential } from './principal';

/** Turns a presented credential into the application it belongs to, or undefined when unknown. */
export abstract class CredentialResolver {
  abstract resolveApiToken(sha256Hex: string): Promise<ResolvedCredential | undefined>;
  abstract resolvePublishableKey(key: string): Promise<ResolvedCredential | undefined>;
}

interface CacheEntry {
  value: ResolvedCredential;
  expiresAt: number;
}

/** Positive answers are cached this long: a revoked token stops working within this window. */
export const CREDENTIAL_CACHE_MS = 5_000;

/**
 * Asks decision-gateway (the owner of credentials) over NATS request/reply. Only the token's
 * SHA-256 digest crosses the bus. Known credentials are cached briefly and evicted as soon as a
 * revocation event arrives; unknown ones are never cached.
 */
@Injectable()
export class RpcCredentialResolver extends CredentialResolver implements OnModuleInit, OnModuleDestroy {
  private readonly cache = new Map<string, CacheEntry>();
  private revocations?: Subscription;

  constructor(
    private readonly rpc: RpcClient,
    private readonly bus: BusConnection,
  ) {
    super();
  }

  onModuleInit(): void {
    this.revocations = this.bus.nc.subscribe(eventSubject(this.bus.prefix, this.bus.region, 'application.api_token_changed'));
    const subscription = this.revocations;
    void (async () => {
      for await (const message of subscription) {
        try {
          const event = fromBinary(ApiTokenChangedSchema, message.data);
          if (event.change === 'revoked') this.evict(event.tokenId);
        } catch {
          this.cache.clear();
        }
      }
    })();
  }

  onModuleDestroy(): void {
    this.revocations?.unsubscribe();
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

  private async cached(key: string, load: () => Promise<ResolvedCredential | undefined>): Promise<ResolvedCredential | undefined> {
    const hit = this.cache.get(key);
    if (hit && hit.expiresAt > Date.now()) return hit.value;
    const value = await load();
    if (value) {
      if (this.cache.size > 10_000) this.cache.clear();
      this.cache.set(key, { value, expiresAt: Date.now() + CREDENTIAL_CACHE_MS });
    } else {
      this.cache.delete(key);
    }
    return value;
  }

  private async ask(
    request: { credential: { case: 'apiTokenSha256Hex' | 'publishableKey'; value: string } },
    kind: ResolvedCredential['kind'],
  ): Promise<ResolvedCredential | undefined> {
    const reply = await this.rpc.call('gateway.resolve_credential', request);
    if (!reply.found) return undefined;
    return {
      kind,
      applicationId: reply.applicationId,
      credentialId: reply.credentialId,
      scopes: reply.scopes,
      environment: reply.environment === 'production' ? 'production' : 'development',
      region: reply.region,
      mode: reply.mode,
    };
  }
}
