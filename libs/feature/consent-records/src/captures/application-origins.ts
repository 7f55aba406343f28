import { Injectable } from '@nestjs/common';
import { CredentialResolver } from '@svc/auth';
import { RpcClient } from '@svc/bus';
import { consentRecordsError } from '../consent-records.errors';

/**
 * Allowed origins of an application, read from decision-gateway (`gateway.get_application`),
 * which owns them; cached briefly so a form's capture costs no extra round trip per submission.
 */
@Injectable()
export class ApplicationOrigins {
  private readonly cache = new Map<string, { origins: readonly string[]; until: number }>();
  /** How long an origin list is reused, in ms (a removed origin stops working within this). */
  static readonly CACHE_MS = 30_000;

  constructor(
    private readonly rpc: RpcClient,
    private readonly credentials: CredentialResolver,
  ) {}

  async isAllowed(applicationId: string, origin: string): Promise<boolean> {
    const hit = this.cache.get(applicationId);
    if (hit && hit.until > Date.now()) return hit.origins.includes(origin);
    const reply = await this.rpc.call('gateway.get_application', { applicationId });
    const origins = reply.found ? reply.allowedOrigins : [];
    if (this.cache.size > 10_000) this.cache.clear();
    this.cache.set(applicationId, { origins, until: Date.now() + ApplicationOrigins.CACHE_MS });
    return origins.includes(origin);
  }

  /** Refuses (403 origin_not_allowed) a browser request whose Origin is absent or not allowed. */
  async assertAllowed(applicationId: string, origin: string | undefined): Promise<string> {
    if (origin === undefined || !(await this.isAllowed(applicationId, origin))) {
      throw consentRecordsError('origin_not_allowed', "The request's Origin is not one of the application's allowed origins", {
        origin: origin ?? null,
      });
    }
    return origin;
  }

  /** Application of a publishable key (public), for preflights that carry no credential header. */
  async applicationOfPublishableKey(key: string): Promise<string | undefined> {
    if (key.length > 200) return undefined;
    return (await this.credentials.resolvePublishableKey(key))?.applicationId;
  }
}
