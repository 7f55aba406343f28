import { Injectable } from '@nestjs/common';
import type { JSONWebKeySet } from 'jose';
import { request } from 'undici';

/** How long a fetched JWKS is reused, ms. */
export const JWKS_CACHE_MS = 5 * 60_000;
/** Connect/read timeout of a JWKS fetch, ms. */
export const JWKS_TIMEOUT_MS = 3_000;
/** Largest JWKS document accepted, bytes. */
const MAX_JWKS_BYTES = 256 * 1024;

/** Why a JWKS could not be used: the spec's `detail.reason` values. */
export type JwksFailure = 'jwks_fetch_failed' | 'jwks_unreachable' | 'jwks_malformed';

/** Thrown by {@link JwksCache.get}. */
export class JwksError extends Error {
  constructor(readonly reason: JwksFailure) {
    super(reason);
  }
}

/**
 * Fetches trusted issuers' JWKS with undici and caches them for {@link JWKS_CACHE_MS}.
 * `jwks_unreachable`: network error or timeout; `jwks_fetch_failed`: a non-2xx answer;
 * `jwks_malformed`: not JSON, no `keys` array, or oversized. Failures are not cached.
 */
@Injectable()
export class JwksCache {
  private readonly entries = new Map<string, { jwks: JSONWebKeySet; until: number }>();

  async get(uri: string, forceRefresh = false): Promise<JSONWebKeySet> {
    const hit = this.entries.get(uri);
    if (hit && hit.until > Date.now() && !forceRefresh) return hit.jwks;
    let text: string;
    try {
      const response = await request(uri, {
        method: 'GET',
        headersTimeout: JWKS_TIMEOUT_MS,
        bodyTimeout: JWKS_TIMEOUT_MS,
        headers: { accept: 'application/json' },
      });
      if (response.statusCode < 200 || response.statusCode >= 300) {
        await response.body.dump();
        throw new JwksError('jwks_fetch_failed');
      }
      text = await response.body.text();
    } catch (error) {
      if (error instanceof JwksError) throw error;
      throw new JwksError('jwks_unreachable');
    }
    if (text.length > MAX_JWKS_BYTES) throw new JwksError('jwks_malformed');
    let jwks: unknown;
    try {
      jwks = JSON.parse(text);
    } catch {
      throw new JwksError('jwks_malformed');
    }
    if (
      typeof jwks !== 'object' ||
      jwks === null ||
      !Array.isArray((jwks as { keys?: unknown }).keys) ||
      !(jwks as JSONWebKeySet).keys.every((k) => typeof k === 'object' && k !== null && typeof k.kty === 'string')
    ) {
      throw new JwksError('jwks_malformed');
    }
    this.entries.set(uri, { jwks: jwks as JSONWebKeySet, until: Date.now() + JWKS_CACHE_MS });
    return jwks as JSONWebKeySet;
  }
}
