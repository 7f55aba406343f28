import { createPublicKey, type KeyObject } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { Clock } from '@svc/config';
import { SigningKeyStore } from '@svc/key-store';
import { StatusLists } from '../credentials/status-lists';
import { ReceiptsConfig } from '../receipts.config';
import { didWebOf } from '../credentials/issuer-identity';
import type { TrustedIssuer } from './trust-list';

/** How long a fetched DID document or JWKS is used, ms. */
const KEY_CACHE_MS = 60_000;
/** Shortest interval between refetches caused by an unknown kid, ms. */
const UNKNOWN_KID_REFETCH_MS = 5_000;
/** Longest document read from an issuer, bytes. */
const MAX_DOCUMENT_BYTES = 256 * 1024;
/** Timeout of one fetch, ms. */
const FETCH_TIMEOUT_MS = 3_000;

interface CachedKeys {
  keys: Map<string, KeyObject>;
  fetchedAt: number;
}

/** Why a key or status list could not be had. */
export class IssuerKeyError extends Error {
  constructor(readonly reason: 'issuer_unreachable' | 'issuer_document_malformed' | 'key_not_found') {
    super(reason);
  }
}

/**
 * Keys and status lists of trusted issuers. This region's own keys and lists are read locally
 * (key store, status-list table); another region's or issuer's come from the URLs its trust-list
 * entry names (the published did.json or JWKS, and status lists on that origin): a credential
 * issued elsewhere is verified against its issuer's published key without asking the issuer about
 * the credential.
 */
@Injectable()
export class IssuerKeys {
  private readonly cache = new Map<string, CachedKeys>();
  readonly ownDid: string;

  constructor(
    private readonly config: ReceiptsConfig,
    private readonly keys: SigningKeyStore,
    private readonly statusLists: StatusLists,
    private readonly clock: Clock,
  ) {
    this.ownDid = didWebOf(config.publicBaseUrl);
  }

  /** The trust-list entry of `iss`, or undefined when the issuer is not trusted. */
  trusted(iss: string): TrustedIssuer | undefined {
    const listed = this.config.trustedIssuers().find((entry) => entry.issuer === iss);
    if (listed || iss !== this.ownDid) return listed;
    return { issuer: iss, did_document_url: `${this.config.publicBaseUrl}/.well-known/did.json`, region: this.config.REGION };
  }

  /** The issuer's public key named by `kid` (a DID URL `did#fragment`, or a bare kid). */
  async key(issuer: TrustedIssuer, kid: string): Promise<KeyObject> {
    const fragment = kid.includes('#') ? kid.slice(kid.indexOf('#') + 1) : kid;
    if (kid.includes('#') && !kid.startsWith(`${issuer.issuer}#`)) throw new IssuerKeyError('key_not_found');
    if (issuer.issuer === this.ownDid) {
      const own = await this.keys.publicKey(fragment);
      if (!own) throw new IssuerKeyError('key_not_found');
      return own;
    }
    const now = this.clock.now().getTime();
    let cached = this.cache.get(issuer.issuer);
    if (
      !cached ||
      now - cached.fetchedAt > KEY_CACHE_MS ||
      (!cached.keys.has(fragment) && now - cached.fetchedAt > UNKNOWN_KID_REFETCH_MS)
    ) {
      cached = { keys: await this.fetchKeys(issuer), fetchedAt: now };
      this.cache.set(issuer.issuer, cached);
    }
    const key = cached.keys.get(fragment);
    if (!key) throw new IssuerKeyError('key_not_found');
    return key;
  }

  /** The status list token at `uri`, only from the issuer's own origin. */
  async statusListToken(issuer: TrustedIssuer, uri: string): Promise<string> {
    const base = new URL(issuer.did_document_url ?? issuer.jwks_uri!);
    let target: URL;
    try {
      target = new URL(uri);
    } catch {
      throw new IssuerKeyError('issuer_document_malformed');
    }
    if (target.origin !== base.origin) throw new IssuerKeyError('issuer_document_malformed');
    if (issuer.issuer === this.ownDid) {
      const id = target.pathname.split('/').pop() ?? '';
      const token = await this.statusLists.token(id);
      if (!token) throw new IssuerKeyError('issuer_document_malformed');
      return token;
    }
    return this.fetchText(target.toString());
  }

  private async fetchKeys(issuer: TrustedIssuer): Promise<Map<string, KeyObject>> {
    const text = await this.fetchText(issuer.did_document_url ?? issuer.jwks_uri!);
    let document: unknown;
    try {
      document = JSON.parse(text);
    } catch {
      throw new IssuerKeyError('issuer_document_malformed');
    }
    const keys = new Map<string, KeyObject>();
    const add = (id: unknown, jwk: unknown): void => {
      if (typeof id !== 'string' || typeof jwk !== 'object' || jwk === null || 'd' in jwk) return;
      try {
        keys.set(id, createPublicKey({ key: jwk as never, format: 'jwk' }));
      } catch {
        // An unusable key is skipped; the others still verify.
      }
    };
    if (issuer.did_document_url) {
      const doc = document as {
        id?: unknown;
        verificationMethod?: Array<{ id?: unknown; publicKeyJwk?: unknown }>;
        assertionMethod?: unknown[];
      };
      if (doc.id !== issuer.issuer || !Array.isArray(doc.verificationMethod)) throw new IssuerKeyError('issuer_document_malformed');
      const assertion = new Set((doc.assertionMethod ?? []).filter((entry): entry is string => typeof entry === 'string'));
      for (const method of doc.verificationMethod) {
        if (typeof method.id !== 'string' || !assertion.has(method.id)) continue;
        const fragment = method.id.startsWith(`${issuer.issuer}#`)
          ? method.id.slice(issuer.issuer.length + 1)
          : method.id.startsWith('#')
            ? method.id.slice(1)
            : undefined;
        if (fragment) add(fragment, method.publicKeyJwk);
      }
    } else {
      const set = document as { keys?: Array<{ kid?: unknown }> };
      if (!Array.isArray(set.keys)) throw new IssuerKeyError('issuer_document_malformed');
      for (const jwk of set.keys) add(jwk.kid, jwk);
    }
    return keys;
  }

  private async fetchText(url: string): Promise<string> {
    let response: Response;
    try {
      response = await fetch(url, {
        signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
        redirect: 'error',
        headers: { accept: 'application/json, application/statuslist+jwt, application/did+json' },
      });
    } catch {
      throw new IssuerKeyError('issuer_unreachable');
    }
    if (!response.ok) throw new IssuerKeyError('issuer_unreachable');
    const body = Buffer.from(await response.arrayBuffer());
    if (body.length > MAX_DOCUMENT_BYTES) throw new IssuerKeyError('issuer_document_malformed');
    return body.toString('utf8');
  }
}
