import { Injectable } from '@nestjs/common';
import { Clock } from '@svc/config';
import { sha256Base64Url } from '@svc/crypto';
import {
  EmbeddedJWK,
  calculateJwkThumbprint,
  decodeProtectedHeader,
  errors as joseErrors,
  jwtVerify,
  type JWK,
  type JWTVerifyGetKey,
  type KeyLike,
} from 'jose';
import { oapError } from '../oap.errors';
import { DPOP_CHALLENGE, INCOMING_JWS_ALGORITHMS } from './jws-algorithms';
import { ReplayCache } from '../shared/replay-cache';

/** Accepted age (and future skew) of a DPoP proof's `iat`, seconds (RFC 9449 §11.1 leaves it to us). */
export const DPOP_IAT_WINDOW_SECONDS = 60;

/** Signature algorithms accepted for DPoP proofs: asymmetric only (RFC 9449 §4.2). */
export const DPOP_ALGORITHMS = INCOMING_JWS_ALGORITHMS;

/** Longest proof parsed, characters. */
const MAX_PROOF_LENGTH = 8192;

/** Most proof keys kept imported (an agent signs many proofs with one key); emptied when full. */
const MAX_CACHED_PROOF_KEYS = 10_000;

/** A proof key imported by jose's `EmbeddedJWK`, with its RFC 7638 thumbprint. */
interface ProofKey {
  key: KeyLike;
  jkt: string;
}

/** What a verified proof establishes. */
export interface VerifiedDpop {
  /** RFC 7638 thumbprint (base64url SHA-256) of the proof's public key. */
  jkt: string;
}

/** The one-time value of a proof, for a caller that records it itself (inside its own transaction). */
export interface DpopReplayEntry {
  value: string;
  expiresAt: Date;
}

/** A proof whose `jti` was already used. */
export function dpopReplayedError(): Error {
  return oapError('dpop_proof_replayed', 'DPoP proof jti was already used');
}

/**
 * RFC 9449 DPoP proof verification (§4.3): one `DPoP` header holding a JWT with `typ: dpop+jwt`,
 * an asymmetric `alg`, a public `jwk` (no private members) that verifies its signature, `htm` equal
 * to the method, `htu` equal to the request URL without query and fragment, `iat` within
 * ±{@link DPOP_IAT_WINDOW_SECONDS}, a `jti` never seen before (per key, region-wide), and — when
 * an access token is presented — `ath` equal to base64url(SHA-256(token)).
 */
@Injectable()
export class DpopVerifier {
  /** By the exact `alg` and `jwk` of the proof header, so a hit is the very key jose would import. */
  private readonly proofKeys = new Map<string, ProofKey>();

  constructor(
    private readonly clock: Clock,
    private readonly replay: ReplayCache,
  ) {}

  async verify(input: { header: string | string[] | undefined; method: string; url: string; accessToken?: string }): Promise<VerifiedDpop> {
    const { jkt, replay } = await this.verifyDeferringReplay(input);
    if (!(await this.replay.firstUse('dpop', replay.value, replay.expiresAt, this.clock.now()))) throw dpopReplayedError();
    return { jkt };
  }

  /**
   * Every check of {@link verify} except recording the `jti`: the caller must record `replay` (see
   * `ReplayCache.firstUseMany`) and refuse the request when it was already used.
   */
  async verifyDeferringReplay(input: {
    header: string | string[] | undefined;
    method: string;
    url: string;
    accessToken?: string;
  }): Promise<VerifiedDpop & { replay: DpopReplayEntry }> {
    if (input.header === undefined)
      throw oapError('dpop_proof_missing', 'A DPoP proof header is required', undefined, { 'WWW-Authenticate': DPOP_CHALLENGE });
    if (Array.isArray(input.header)) throw oapError('dpop_proof_invalid', 'Exactly one DPoP header is allowed');
    const proof = input.header;
    if (proof.length > MAX_PROOF_LENGTH) throw oapError('dpop_proof_invalid', 'DPoP proof is too long');
    let header: ReturnType<typeof decodeProtectedHeader>;
    try {
      header = decodeProtectedHeader(proof);
    } catch {
      throw oapError('dpop_proof_invalid', 'DPoP proof is not a JWS');
    }
    const jwk = header.jwk as (JWK & { d?: unknown }) | undefined;
    if (!jwk || typeof jwk !== 'object' || 'd' in jwk || jwk.kty === 'oct')
      throw oapError('dpop_proof_invalid', 'DPoP proof must embed a public jwk');
    const now = this.clock.now();
    const keyId = `${String(header.alg)}\u0000${JSON.stringify(jwk)}`;
    const resolveKey: JWTVerifyGetKey = async (protectedHeader, token) => {
      const cached = this.proofKeys.get(keyId);
      if (cached) return cached.key;
      const key = await EmbeddedJWK(protectedHeader, token);
      if (this.proofKeys.size >= MAX_CACHED_PROOF_KEYS) this.proofKeys.clear();
      this.proofKeys.set(keyId, { key, jkt: await calculateJwkThumbprint(jwk, 'sha256') });
      return key;
    };
    let payload: Record<string, unknown>;
    try {
      const verified = await jwtVerify(proof, resolveKey, {
        typ: 'dpop+jwt',
        algorithms: DPOP_ALGORITHMS,
        currentDate: now,
        clockTolerance: DPOP_IAT_WINDOW_SECONDS,
      });
      payload = verified.payload as Record<string, unknown>;
    } catch (error) {
      const reason = error instanceof joseErrors.JOSEError ? error.code : 'invalid';
      throw oapError('dpop_proof_invalid', 'DPoP proof signature or header is invalid', { reason });
    }
    if (payload.htm !== input.method)
      throw oapError('dpop_proof_invalid', 'DPoP htm does not match the request method', { reason: 'htm_mismatch' });
    if (typeof payload.htu !== 'string' || normaliseHtu(payload.htu) !== normaliseHtu(input.url)) {
      throw oapError('dpop_proof_invalid', 'DPoP htu does not match the request URL', { reason: 'htu_mismatch' });
    }
    const iat = payload.iat;
    if (typeof iat !== 'number' || Math.abs(iat - now.getTime() / 1000) > DPOP_IAT_WINDOW_SECONDS) {
      throw oapError('dpop_proof_invalid', 'DPoP iat is outside the accepted window', { reason: 'iat_window' });
    }
    if (typeof payload.jti !== 'string' || payload.jti.length < 8 || payload.jti.length > 256)
      throw oapError('dpop_proof_invalid', 'DPoP jti is missing', { reason: 'jti_missing' });
    if (input.accessToken !== undefined && payload.ath !== sha256Base64Url(input.accessToken)) {
      throw oapError('dpop_proof_invalid', 'DPoP ath does not match the access token', { reason: 'ath_mismatch' });
    }
    const jkt = this.proofKeys.get(keyId)?.jkt ?? (await calculateJwkThumbprint(jwk, 'sha256'));
    return { jkt, replay: { value: `${jkt}.${payload.jti}`, expiresAt: new Date(now.getTime() + 2 * DPOP_IAT_WINDOW_SECONDS * 1000) } };
  }
}

/** RFC 9449 §4.3 (9): compare without query and fragment; scheme and host case-insensitive. */
export function normaliseHtu(value: string): string {
  try {
    const url = new URL(value);
    // URL lowercases scheme and host and drops default ports; the path stays case-sensitive.
    return `${url.protocol}//${url.host}${url.pathname}`;
  } catch {
    return '';
  }
}
