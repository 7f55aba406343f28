import { createHash, type KeyObject } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { digest } from '@sd-jwt/crypto-nodejs';
import { SDJwt } from '@sd-jwt/core';
import { getListFromStatusListJWT } from '@sd-jwt/jwt-status-list';
import { Clock } from '@svc/config';
import { compactVerify, decodeProtectedHeader, importJWK, type JWK } from 'jose';
import { IssuerKeyError, IssuerKeys } from './issuer-keys';
import type { TrustedIssuer } from './trust-list';

/** Names of the checks, in the order they run. */
export const PRESENTATION_CHECKS = [
  'format',
  'issuer_trusted',
  'signature',
  'disclosures',
  'validity_period',
  'key_binding',
  'status',
] as const;
export type PresentationCheckName = (typeof PRESENTATION_CHECKS)[number];

/** One check's outcome; `not_run` when an earlier check failed or the format has no such check. */
export interface PresentationCheck {
  check: PresentationCheckName;
  result: 'passed' | 'failed' | 'not_run' | 'not_applicable';
  reason?: string;
}

export interface PresentationVerification {
  valid: boolean;
  format: 'dc+sd-jwt' | 'jwt_vc_json' | 'unknown';
  issuer: string | null;
  issuerRegion: string | null;
  issuerCountry: string | null;
  vct: string | null;
  claims: Record<string, unknown>;
  checks: PresentationCheck[];
}

/** What the verifying application expects of the key binding. */
export interface PresentationExpectation {
  nonce: string;
  audience: string;
}

/** Allowed clock skew for `iat`, `nbf`, `exp`, s. */
const SKEW_SECONDS = 60;
/** Oldest key binding JWT accepted, s. */
const KB_MAX_AGE_SECONDS = 300;
const ISSUER_ALGORITHMS = ['EdDSA', 'ES256'];
const HOLDER_ALGORITHMS = ['EdDSA', 'ES256'];
const RESERVED = new Set(['iss', 'iat', 'nbf', 'exp', 'cnf', 'vct', 'vct#integrity', 'status', '_sd', '_sd_alg']);

/** A failed check: its name and reason code. */
class CheckFailed extends Error {
  constructor(
    readonly check: PresentationCheckName,
    readonly reason: string,
  ) {
    super(reason);
  }
}

const b64json = (part: string): Record<string, unknown> => {
  const value: unknown = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error('not an object');
  return value as Record<string, unknown>;
};
const sha256b64 = (value: string): string => createHash('sha256').update(value, 'ascii').digest('base64url');

/**
 * Verifies a presented credential: an SD-JWT VC presentation (draft-ietf-oauth-sd-jwt-vc,
 * RFC 9901 SD-JWT) with its key binding JWT, or a W3C VC-JWT. Each rule is one named check; the
 * first failure ends the run and names itself, the later ones answer `not_run`. All input is
 * attacker-controlled: keys come only from the trust list (never from the token's own headers
 * except the holder key the issuer signed into `cnf`), status lists only from the issuer's origin.
 */
@Injectable()
export class VerifyPresentation {
  constructor(
    private readonly issuers: IssuerKeys,
    private readonly clock: Clock,
  ) {}

  /**
   * The deployment region whose trusted issuer names itself in the presentation (`iss`, read
   * before any check), or undefined for an issuer outside the deployment or an unreadable token.
   * The caller records the crossing before verifying a credential of another region.
   */
  issuerRegionOf(presentation: string): { region: string; country: string | undefined } | undefined {
    try {
      const jwt = presentation.includes('~') ? presentation.split('~')[0]! : presentation;
      const iss = b64json(jwt.split('.')[1] ?? '').iss;
      const issuer = typeof iss === 'string' ? this.issuers.trusted(iss) : undefined;
      return issuer?.region ? { region: issuer.region, country: issuer.country } : undefined;
    } catch {
      return undefined;
    }
  }

  async execute(presentation: string, expected: PresentationExpectation): Promise<PresentationVerification> {
    const checks: PresentationCheck[] = [];
    const result: PresentationVerification = {
      valid: false,
      format: 'unknown',
      issuer: null,
      issuerRegion: null,
      issuerCountry: null,
      vct: null,
      claims: {},
      checks,
    };
    const pass = (check: PresentationCheckName, outcome: PresentationCheck['result'] = 'passed'): void =>
      void checks.push({ check, result: outcome });
    try {
      if (presentation.includes('~')) await this.sdJwtVc(presentation, expected, result, pass);
      else await this.vcJwt(presentation, result, pass);
      result.valid = true;
    } catch (error) {
      // Anything else thrown while parsing attacker-controlled input (a library's parse error, a
      // pathological nesting) fails the check under way: never a 5xx.
      const failed =
        error instanceof CheckFailed
          ? error
          : new CheckFailed(PRESENTATION_CHECKS.find((name) => !checks.some((check) => check.check === name)) ?? 'format', 'malformed');
      checks.push({ check: failed.check, result: 'failed', reason: failed.reason });
      result.claims = {};
    }
    for (const name of PRESENTATION_CHECKS)
      if (!checks.some((check) => check.check === name)) checks.push({ check: name, result: 'not_run' });
    return result;
  }

  private async sdJwtVc(
    presentation: string,
    expected: PresentationExpectation,
    result: PresentationVerification,
    pass: (check: PresentationCheckName, outcome?: PresentationCheck['result']) => void,
  ): Promise<void> {
    result.format = 'dc+sd-jwt';
    // format: <issuer-jwt>~<disclosure>~…~<kb-jwt>
    const parts = presentation.split('~');
    const issuerJwt = parts[0]!;
    const kbJwt = parts[parts.length - 1]!;
    const disclosures = parts.slice(1, -1);
    let header: Record<string, unknown>;
    let payload: Record<string, unknown>;
    try {
      const [h, p, s] = issuerJwt.split('.');
      if (!h || !p || !s || issuerJwt.split('.').length !== 3) throw new Error('not a compact JWS');
      header = b64json(h);
      payload = b64json(p);
    } catch {
      throw new CheckFailed('format', 'malformed_sd_jwt');
    }
    if (header.typ !== 'dc+sd-jwt' && header.typ !== 'vc+sd-jwt') throw new CheckFailed('format', 'unexpected_typ');
    if (typeof payload.vct !== 'string' || typeof payload.iss !== 'string') throw new CheckFailed('format', 'missing_claims');
    if (payload._sd_alg !== undefined && payload._sd_alg !== 'sha-256') throw new CheckFailed('format', 'unsupported_sd_alg');
    result.issuer = payload.iss;
    result.vct = payload.vct;
    pass('format');

    const issuer = this.trusted(payload.iss, result);
    pass('issuer_trusted');

    await this.verifySignature(issuer, issuerJwt, header);
    pass('signature');

    // disclosures: each one referenced exactly once by a digest of the payload or of another disclosure.
    const referenced = new Set<string>();
    collectDigests(payload, referenced);
    const seen = new Set<string>();
    for (const disclosure of disclosures) {
      let decoded: unknown;
      try {
        decoded = JSON.parse(Buffer.from(disclosure, 'base64url').toString('utf8'));
      } catch {
        throw new CheckFailed('disclosures', 'malformed_disclosure');
      }
      if (!Array.isArray(decoded) || (decoded.length !== 2 && decoded.length !== 3))
        throw new CheckFailed('disclosures', 'malformed_disclosure');
      if (decoded.length === 3 && (typeof decoded[1] !== 'string' || RESERVED.has(decoded[1])))
        throw new CheckFailed('disclosures', 'reserved_claim_disclosed');
      collectDigests(decoded[decoded.length - 1], referenced);
      const digestValue = sha256b64(disclosure);
      if (seen.has(digestValue)) throw new CheckFailed('disclosures', 'duplicate_disclosure');
      seen.add(digestValue);
    }
    for (const digestValue of seen) if (!referenced.has(digestValue)) throw new CheckFailed('disclosures', 'unreferenced_disclosure');
    let claims: Record<string, unknown>;
    try {
      const withoutKb = `${parts.slice(0, -1).join('~')}~`;
      claims = (await (await SDJwt.fromEncode(withoutKb, digest)).getClaims(digest)) as Record<string, unknown>;
    } catch {
      throw new CheckFailed('disclosures', 'malformed_disclosure');
    }
    result.claims = Object.fromEntries(Object.entries(claims).filter(([name]) => !RESERVED.has(name)));
    pass('disclosures');

    this.validityPeriod(payload);
    pass('validity_period');

    // key_binding: the holder key the issuer signed into cnf signed a KB-JWT over this presentation.
    if (!kbJwt) throw new CheckFailed('key_binding', 'key_binding_missing');
    const cnf = payload.cnf as { jwk?: JWK } | undefined;
    if (!cnf?.jwk || typeof cnf.jwk !== 'object') throw new CheckFailed('key_binding', 'holder_key_missing');
    let kbHeader: Record<string, unknown>;
    let kbPayload: Record<string, unknown>;
    try {
      kbHeader = decodeProtectedHeader(kbJwt) as Record<string, unknown>;
      kbPayload = b64json(kbJwt.split('.')[1] ?? '');
    } catch {
      throw new CheckFailed('key_binding', 'malformed_key_binding');
    }
    if (kbHeader.typ !== 'kb+jwt' || !HOLDER_ALGORITHMS.includes(String(kbHeader.alg)))
      throw new CheckFailed('key_binding', 'malformed_key_binding');
    try {
      await compactVerify(kbJwt, await importJWK(cnf.jwk, String(kbHeader.alg)), { algorithms: HOLDER_ALGORITHMS });
    } catch {
      throw new CheckFailed('key_binding', 'key_binding_signature_invalid');
    }
    if (kbPayload.nonce !== expected.nonce) throw new CheckFailed('key_binding', 'nonce_mismatch');
    if (kbPayload.aud !== expected.audience) throw new CheckFailed('key_binding', 'audience_mismatch');
    const now = Math.floor(this.clock.now().getTime() / 1000);
    if (typeof kbPayload.iat !== 'number' || kbPayload.iat > now + SKEW_SECONDS || kbPayload.iat < now - KB_MAX_AGE_SECONDS)
      throw new CheckFailed('key_binding', 'key_binding_stale');
    if (kbPayload.sd_hash !== sha256b64(`${parts.slice(0, -1).join('~')}~`)) throw new CheckFailed('key_binding', 'sd_hash_mismatch');
    pass('key_binding');

    await this.status(issuer, payload.status, pass);
  }

  private async vcJwt(
    presentation: string,
    result: PresentationVerification,
    pass: (check: PresentationCheckName, outcome?: PresentationCheck['result']) => void,
  ): Promise<void> {
    let header: Record<string, unknown>;
    let payload: Record<string, unknown>;
    try {
      const [h, p, s] = presentation.split('.');
      if (!h || !p || !s || presentation.split('.').length !== 3) throw new Error('not a compact JWS');
      header = b64json(h);
      payload = b64json(p);
    } catch {
      throw new CheckFailed('format', 'malformed_jwt');
    }
    const vc = payload.vc as { type?: unknown; credentialSubject?: unknown; credentialStatus?: unknown } | undefined;
    if (
      typeof vc !== 'object' ||
      vc === null ||
      !Array.isArray(vc.type) ||
      !vc.type.includes('VerifiableCredential') ||
      typeof payload.iss !== 'string'
    ) {
      throw new CheckFailed('format', 'not_a_vc_jwt');
    }
    result.format = 'jwt_vc_json';
    result.issuer = payload.iss;
    pass('format');
    const issuer = this.trusted(payload.iss, result);
    pass('issuer_trusted');
    await this.verifySignature(issuer, presentation, header);
    pass('signature');
    pass('disclosures', 'not_applicable');
    result.claims =
      typeof vc.credentialSubject === 'object' && vc.credentialSubject !== null ? (vc.credentialSubject as Record<string, unknown>) : {};
    this.validityPeriod(payload);
    pass('validity_period');
    pass('key_binding', 'not_applicable');
    // A VC-JWT names an IETF status list the same way (`status.status_list`), when it has one.
    await this.status(issuer, payload.status, pass);
  }

  private trusted(iss: string, result: PresentationVerification): TrustedIssuer {
    const issuer = this.issuers.trusted(iss);
    if (!issuer) throw new CheckFailed('issuer_trusted', 'untrusted_issuer');
    result.issuerRegion = issuer.region ?? null;
    result.issuerCountry = issuer.country ?? null;
    return issuer;
  }

  private async verifySignature(issuer: TrustedIssuer, jws: string, header: Record<string, unknown>): Promise<void> {
    if (!ISSUER_ALGORITHMS.includes(String(header.alg))) throw new CheckFailed('signature', 'unsupported_algorithm');
    if (typeof header.kid !== 'string') throw new CheckFailed('signature', 'kid_missing');
    let key: KeyObject;
    try {
      key = await this.issuers.key(issuer, header.kid);
    } catch (error) {
      if (error instanceof IssuerKeyError) throw new CheckFailed('signature', error.reason);
      throw error;
    }
    try {
      await compactVerify(jws, key, { algorithms: ISSUER_ALGORITHMS });
    } catch {
      throw new CheckFailed('signature', 'signature_invalid');
    }
  }

  private validityPeriod(payload: Record<string, unknown>): void {
    const now = Math.floor(this.clock.now().getTime() / 1000);
    if (typeof payload.exp === 'number' && payload.exp <= now - SKEW_SECONDS) throw new CheckFailed('validity_period', 'expired');
    if (typeof payload.nbf === 'number' && payload.nbf > now + SKEW_SECONDS) throw new CheckFailed('validity_period', 'not_yet_valid');
    if (typeof payload.iat === 'number' && payload.iat > now + SKEW_SECONDS) throw new CheckFailed('validity_period', 'issued_in_future');
  }

  /** status: the entry of the issuer's signed status list is 0 (VALID). */
  private async status(
    issuer: TrustedIssuer,
    status: unknown,
    pass: (check: PresentationCheckName, outcome?: PresentationCheck['result']) => void,
  ): Promise<void> {
    const reference = (status as { status_list?: { idx?: unknown; uri?: unknown } } | undefined)?.status_list;
    if (status === undefined) return pass('status', 'not_applicable');
    if (
      !reference ||
      typeof reference.idx !== 'number' ||
      !Number.isInteger(reference.idx) ||
      reference.idx < 0 ||
      typeof reference.uri !== 'string'
    )
      throw new CheckFailed('status', 'status_reference_malformed');
    let token: string;
    try {
      token = await this.issuers.statusListToken(issuer, reference.uri);
    } catch (error) {
      if (error instanceof IssuerKeyError)
        throw new CheckFailed('status', error.reason === 'issuer_unreachable' ? 'status_list_unreachable' : 'status_list_malformed');
      throw error;
    }
    let header: Record<string, unknown>;
    let payload: Record<string, unknown>;
    try {
      header = decodeProtectedHeader(token) as Record<string, unknown>;
      payload = b64json(token.split('.')[1] ?? '');
    } catch {
      throw new CheckFailed('status', 'status_list_malformed');
    }
    if (header.typ !== 'statuslist+jwt' || payload.sub !== reference.uri) throw new CheckFailed('status', 'status_list_malformed');
    try {
      await this.verifySignature(issuer, token, header);
    } catch {
      throw new CheckFailed('status', 'status_list_signature_invalid');
    }
    let value: number;
    try {
      value = getListFromStatusListJWT(token).getStatus(reference.idx);
    } catch {
      throw new CheckFailed('status', 'status_list_malformed');
    }
    if (value !== 0) throw new CheckFailed('status', value === 1 ? 'revoked' : value === 2 ? 'suspended' : 'status_invalid');
    pass('status');
  }
}

/** Deepest nesting of claims followed (the platform's JSON depth limit). */
const MAX_CLAIM_DEPTH = 32;

/** Every digest a value references: `_sd` members and `{"...": digest}` array elements, recursively. */
function collectDigests(value: unknown, into: Set<string>, depth = 0): void {
  if (depth > MAX_CLAIM_DEPTH) throw new CheckFailed('disclosures', 'claims_too_deep');
  if (Array.isArray(value)) {
    for (const element of value) {
      if (
        typeof element === 'object' &&
        element !== null &&
        !Array.isArray(element) &&
        typeof (element as Record<string, unknown>)['...'] === 'string' &&
        Object.keys(element).length === 1
      ) {
        into.add((element as Record<string, string>)['...']!);
      } else collectDigests(element, into, depth + 1);
    }
    return;
  }
  if (typeof value !== 'object' || value === null) return;
  for (const [name, member] of Object.entries(value)) {
    if (name === '_sd' && Array.isArray(member)) {
      for (const entry of member) if (typeof entry === 'string') into.add(entry);
    } else {
      collectDigests(member, into, depth + 1);
    }
  }
}
