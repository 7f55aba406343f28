import { Injectable } from '@nestjs/common';
import { RpcClient } from '@svc/bus';
import { PlatformConfig } from '@svc/config';

/** How long the audit chain identity is cached, ms (it never changes for a region). */
const CACHE_MS = 5 * 60_000;
/** How long a failed lookup is remembered before asking again, ms. */
const FAILURE_CACHE_MS = 30_000;

/**
 * The region's audit chain identity (`audit.get_chain_info`), used as the receipts' `chronicle_id`
 * and in `/api/v1/oap/version`. Cached; while audit-chain does not answer, `chronicle_id` falls
 * back to `audit-<region>` so granting never waits on it.
 */
@Injectable()
export class ChronicleDirectory {
  private cached?: { id: string; genesisHash: string | null; until: number };
  /** The lookup under way, shared by every caller that missed the cache meanwhile. */
  private loading?: Promise<{ id: string; genesisHash: string | null }>;

  constructor(
    private readonly rpc: RpcClient,
    private readonly config: PlatformConfig,
  ) {}

  /** The chain identifier of this region. */
  async chronicleId(): Promise<string> {
    return (await this.info()).id;
  }

  /** The chain's genesis hash, null when audit-chain did not answer. */
  async genesisHash(): Promise<string | null> {
    return (await this.info()).genesisHash;
  }

  private async info(): Promise<{ id: string; genesisHash: string | null }> {
    if (this.cached && this.cached.until > Date.now()) return this.cached;
    this.loading ??= this.load().finally(() => {
      this.loading = undefined;
    });
    // A known identity is served while it is refreshed, so granting never waits on the lookup.
    return this.cached ?? this.loading;
  }

  private async load(): Promise<{ id: string; genesisHash: string | null }> {
    const now = Date.now();
    try {
      const reply = await this.rpc.call('audit.get_chain_info', {}, 500);
      this.cached = { id: reply.origin || `audit-${this.config.REGION}`, genesisHash: reply.genesisHash || null, until: now + CACHE_MS };
    } catch {
      this.cached = { id: `audit-${this.config.REGION}`, genesisHash: null, until: now + FAILURE_CACHE_MS };
    }
    return this.cached;
  }
}
