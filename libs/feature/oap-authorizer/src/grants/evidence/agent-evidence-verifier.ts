import { Injectable } from '@nestjs/common';
import { Clock, PlatformConfig } from '@svc/config';
import { sha256Hex } from '@svc/crypto';
import {
  compactVerify,
  createLocalJWKSet,
  decodeJwt,
  decodeProtectedHeader,
  errors as joseErrors,
  type JWTPayload,
  type ProtectedHeaderParameters,
} from 'jose';
import { AGENT_METADATA_LIMITS, AGENT_TYPES, type AgentMetadata } from '../../agents/agent-metadata';
import { oapError, type OapErrorCode } from '../../oap.errors';
import { ReplayCache } from '../../shared/replay-cache';
import type { GrantRequest } from '../checks/cascade-step';
import { INCOMING_JWS_ALGORITHMS } from '../jws-algorithms';
import type { AttestationOverlay } from '../receipts';
import { decodeAgentCredential, type DecodedCredential } from './agent-credential';
import { CredentialFormatError } from './credential-format-error';
import { JwksCache, JwksError } from './jwks-cache';
import { KeyBindingError, verifyKeyBinding, type KeyBindingFailure } from './sd-jwt';
import { TrustLists, type TrustedIssuer } from './trust-lists';

/** The one attestation format of pipeline v1.1 (spec, agent_attestation block; Versioning 4). */
export const VENDOR_JWT_FORMAT = 'urn:svc:agent_attestation:vendor-jwt-v1';
/** Largest credential or attestation token, characters (spec, Limits: 16 KB). */
export const MAX_EVIDENCE_TOKEN_LENGTH = 16 * 1024;
/** Clock skew allowed on iat/exp, seconds (spec, Limits). */
export const EVIDENCE_SKEW_SECONDS = 60;
/** Asymmetric algorithms accepted from credential issuers and attestation providers. */
const EVIDENCE_ALGORITHMS = INCOMING_JWS_ALGORITHMS;

/** An `agent_attestation` block after its shape check. */
export interface AttestationBlock {
  format: string;
  token: string;
}

/** A verified attestation: its receipt overlay and the token, kept for 90 days. */
export interface VerifiedAttestation {
  overlay: AttestationOverlay;
  token: string;
  claims: JWTPayload;
}

type Kind = 'credential' | 'attestation';

const CODES: Record<
  Kind,
  {
    malformed: OapErrorCode;
    untrusted: OapErrorCode;
    signature: OapErrorCode;
    expired: OapErrorCode;
    audience: OapErrorCode;
    replayed: OapErrorCode;
  }
> = {
  credential: {
    malformed: 'agent_credential_malformed',
    untrusted: 'untrusted_agent_credential_issuer',
    signature: 'agent_credential_signature_invalid',
    expired: 'agent_credential_expired',
    audience: 'agent_credential_audience_mismatch',
    replayed: 'agent_credential_replayed',
  },
  attestation: {
    malformed: 'agent_attestation_malformed',
    untrusted: 'agent_attestation_untrusted_provider',
    signature: 'agent_attestation_signature_invalid',
    expired: 'agent_attestation_expired',
    audience: 'agent_attestation_audience_mismatch',
    replayed: 'agent_attestation_replayed',
  },
};

/** Identity claims compared between the request, the ID token and attestations. */
const IDENTITY_FIELDS = ['agent_type', 'agent_model', 'agent_provider', 'agent_version', 'agent_instance_id'] as const;

/**
 * Verifies `agent_credential` (OIDC-A ID token as a compact JWT, SD-JWT, or a JWT-secured W3C VC)
 * and `agent_attestation` (vendor-jwt-v1) against the deploy-managed trust lists, producing every
 * reason code of the spec's two error tables for each format. Only the provider's signature is
 * verified, not the truth of the content. The `(iss, jti)` replay check runs last, so a token
 * refused for another reason stays usable.
 */
@Injectable()
export class AgentEvidenceVerifier {
  constructor(
    private readonly trust: TrustLists,
    private readonly jwks: JwksCache,
    private readonly replay: ReplayCache,
    private readonly clock: Clock,
    private readonly config: PlatformConfig,
  ) {}

  /** The regional issuer URI a credential's or attestation's `aud` must contain. */
  get regionalIssuer(): string {
    return this.config.publicBaseUrl;
  }

  /** Shape of an `agent_attestation` block: exactly `format` and `token` (≤ 16 KB). */
  parseAttestationBlock(input: unknown): AttestationBlock {
    if (typeof input !== 'object' || input === null || Array.isArray(input))
      throw oapError('agent_attestation_malformed', 'agent_attestation must be an object', { field: 'agent_attestation' });
    const block = input as Record<string, unknown>;
    const unknown = Object.keys(block).filter((k) => k !== 'format' && k !== 'token');
    if (unknown.length > 0)
      throw oapError('agent_attestation_malformed', `agent_attestation.${unknown[0]} is not a known field`, {
        field: `agent_attestation.${unknown[0]}`,
      });
    if (block.format !== VENDOR_JWT_FORMAT)
      throw oapError('agent_attestation_malformed', `agent_attestation.format must be ${VENDOR_JWT_FORMAT}`, {
        field: 'agent_attestation.format',
      });
    if (typeof block.token !== 'string' || block.token.length === 0 || block.token.length > MAX_EVIDENCE_TOKEN_LENGTH) {
      throw oapError('agent_attestation_malformed', 'agent_attestation.token must be a compact JWT of at most 16 KB', {
        field: 'agent_attestation.token',
      });
    }
    return { format: block.format, token: block.token };
  }

  /**
   * Cheap shape check of `agent_credential` at the edge: at most 16 KB, and a compact JWT (three
   * segments) or an SD-JWT whose first `~`-separated part is one.
   */
  checkCredentialShape(token: string): void {
    const issuerJwt = token.split('~', 1)[0]!;
    if (token.length === 0 || token.length > MAX_EVIDENCE_TOKEN_LENGTH || issuerJwt.split('.').length !== 3) {
      throw oapError('agent_credential_malformed', 'agent_credential must be a compact JWT, SD-JWT or JWT-secured VC of at most 16 KB', {
        field: 'agent_credential',
      });
    }
  }

  /** Verifies whatever evidence a grant request carries; returns the attestation overlay, if any. */
  async verify(
    request: GrantRequest,
    evidence: { credential?: string; attestation?: AttestationBlock },
  ): Promise<{ attestation?: VerifiedAttestation }> {
    if (evidence.credential !== undefined) await this.verifyCredential(evidence.credential, request);
    if (evidence.attestation === undefined) return {};
    return { attestation: await this.verifyAttestation(evidence.attestation, { agentId: request.agentId, metadata: request.metadata }) };
  }

  /**
   * `agent_credential` in any accepted format, checked as an OIDC-A ID token once read: trusted
   * issuer and kid, signature of the issuer-signed JWT, SD-JWT key binding when present, time,
   * audience, taxonomy, metadata agreement, replay.
   */
  async verifyCredential(token: string, request: GrantRequest): Promise<JWTPayload> {
    if (token.length > MAX_EVIDENCE_TOKEN_LENGTH)
      throw oapError('agent_credential_malformed', 'agent_credential exceeds 16 KB', { field: 'agent_credential' });
    let credential: DecodedCredential;
    try {
      credential = await decodeAgentCredential(token);
    } catch (error) {
      if (error instanceof CredentialFormatError)
        throw oapError('agent_credential_malformed', error.message, { field: 'agent_credential', ...error.detail });
      throw error;
    }
    const payload = await this.checkIssued(
      'credential',
      credential.header,
      credential.claims,
      credential.signedJwt,
      ['iss', 'sub', 'aud', 'iat', 'exp', 'jti'],
      credential.format === 'id_token' ? undefined : credential.format,
    );
    if (credential.sdJwt?.keyBindingJwt !== undefined) await this.checkKeyBinding(credential);
    const claimedType = payload.agent_type;
    if (claimedType !== undefined && !(AGENT_TYPES as readonly unknown[]).includes(claimedType)) {
      throw oapError('agent_type_outside_taxonomy', 'The credential agent_type is outside the taxonomy', {
        field: 'agent_credential.agent_type',
        allowed: AGENT_TYPES,
      });
    }
    const disagreeing = disagreeingFields(request.metadata, payload, [...IDENTITY_FIELDS, 'delegator_sub']);
    if (disagreeing.length > 0)
      throw oapError('agent_metadata_mismatch', 'agent_metadata disagrees with the ID token', { disagreeing_fields: disagreeing });
    await this.consume('credential', payload);
    return payload;
  }

  /**
   * vendor-jwt-v1 attestation: trusted provider, allowed and unrevoked kid, signature, time,
   * audience, identity agreement (with the request's agent and metadata, and with a prior
   * attestation on refresh), replay.
   */
  async verifyAttestation(
    block: AttestationBlock,
    identity: { agentId: string; metadata?: AgentMetadata; prior?: JWTPayload },
  ): Promise<VerifiedAttestation> {
    const { payload } = await this.verifyJwt('attestation', block.token, ['iss', 'aud', 'iat', 'exp', 'jti']);
    const disagreeing: string[] = [];
    if (payload.sub !== undefined && payload.sub !== identity.agentId) disagreeing.push('sub');
    disagreeing.push(...disagreeingFields(identity.metadata, payload, IDENTITY_FIELDS));
    if (identity.prior) {
      for (const field of ['sub', ...IDENTITY_FIELDS]) {
        if (
          identity.prior[field] !== undefined &&
          payload[field] !== undefined &&
          identity.prior[field] !== payload[field] &&
          !disagreeing.includes(field)
        )
          disagreeing.push(field);
      }
    }
    if (disagreeing.length > 0)
      throw oapError('agent_attestation_identity_mismatch', 'The attestation identity disagrees with the grant', {
        disagreeing_fields: disagreeing,
      });
    await this.consume('attestation', payload);
    return {
      token: block.token,
      claims: payload,
      overlay: {
        format: block.format,
        iss: payload.iss!,
        jti: payload.jti!,
        iat: payload.iat!,
        exp: payload.exp!,
        claims_digest: sha256Hex(block.token),
      },
    };
  }

  private async verifyJwt(kind: Kind, token: string, required: readonly string[]): Promise<{ payload: JWTPayload }> {
    const codes = CODES[kind];
    const field = kind === 'credential' ? 'agent_credential' : 'agent_attestation.token';
    if (token.length > MAX_EVIDENCE_TOKEN_LENGTH) throw oapError(codes.malformed, `${field} exceeds 16 KB`, { field });
    let header: ReturnType<typeof decodeProtectedHeader>;
    let payload: JWTPayload;
    try {
      header = decodeProtectedHeader(token);
      payload = decodeJwt(token);
    } catch {
      throw oapError(codes.malformed, `${field} is not a parseable compact JWT`, { field });
    }
    return { payload: await this.checkIssued(kind, header, payload, token, required) };
  }

  /**
   * The checks every format shares once its claims are read, in the order of the error tables:
   * required claims, trusted issuer and kid, signature of `signedJwt`, iat/exp (±60 s), audience.
   */
  private async checkIssued(
    kind: Kind,
    header: ProtectedHeaderParameters,
    payload: JWTPayload,
    signedJwt: string,
    required: readonly string[],
    format?: string,
  ): Promise<JWTPayload> {
    const codes = CODES[kind];
    const field = kind === 'credential' ? 'agent_credential' : 'agent_attestation.token';
    const formatDetail = format === undefined ? {} : { format };
    const missing = required.filter((claim) => payload[claim] === undefined);
    if (missing.length > 0)
      throw oapError(codes.malformed, `${field} lacks required claims: ${missing.join(', ')}`, {
        field,
        missing_claims: missing,
        ...formatDetail,
      });
    if (
      typeof payload.iss !== 'string' ||
      typeof payload.jti !== 'string' ||
      typeof payload.iat !== 'number' ||
      typeof payload.exp !== 'number'
    ) {
      throw oapError(codes.malformed, `${field} has claims of the wrong type`, { field, ...formatDetail });
    }
    const region = this.config.REGION;
    const issuer: TrustedIssuer | undefined =
      kind === 'credential' ? this.trust.credentialIssuer(payload.iss, region) : this.trust.attestationProvider(payload.iss, region);
    const kid = typeof header.kid === 'string' ? header.kid : undefined;
    if (!issuer) throw oapError(codes.untrusted, `Issuer ${payload.iss} is not trusted in region ${region}`, { iss: payload.iss });
    if (issuer.kids && (kid === undefined || !issuer.kids.includes(kid)))
      throw oapError(codes.untrusted, `kid ${kid ?? '(none)'} is not allowed for ${payload.iss}`, { iss: payload.iss, kid: kid ?? null });
    if (kid !== undefined && issuer.revoked_kids?.includes(kid)) {
      if (kind === 'attestation')
        throw oapError('agent_attestation_kid_revoked', `kid ${kid} is revoked for ${payload.iss}`, { iss: payload.iss, kid });
      throw oapError(codes.untrusted, `kid ${kid} is not allowed for ${payload.iss}`, { iss: payload.iss, kid });
    }
    await this.checkSignature(kind, signedJwt, issuer);
    const now = this.clock.now().getTime() / 1000;
    if (!(payload.iat <= now + EVIDENCE_SKEW_SECONDS && now - EVIDENCE_SKEW_SECONDS < payload.exp)) {
      throw oapError(codes.expired, `${field} is expired or not yet valid`, { iat: payload.iat, exp: payload.exp });
    }
    const audiences = Array.isArray(payload.aud) ? payload.aud : [payload.aud];
    if (!audiences.includes(this.regionalIssuer))
      throw oapError(codes.audience, `${field} aud must contain ${this.regionalIssuer}`, { expected_audience: this.regionalIssuer });
    return payload;
  }

  /** SD-JWT+KB: the holder's key-binding JWT, after the issuer signature made `cnf` trustworthy. */
  private async checkKeyBinding(credential: DecodedCredential): Promise<void> {
    const codes: Record<KeyBindingFailure, OapErrorCode> = {
      malformed: 'agent_credential_malformed',
      signature: 'agent_credential_signature_invalid',
      expired: 'agent_credential_expired',
      audience: 'agent_credential_audience_mismatch',
    };
    try {
      await verifyKeyBinding(credential.sdJwt!, credential.claims.cnf, {
        audience: this.regionalIssuer,
        nowSeconds: this.clock.now().getTime() / 1000,
        skewSeconds: EVIDENCE_SKEW_SECONDS,
        algorithms: EVIDENCE_ALGORITHMS,
      });
    } catch (error) {
      if (!(error instanceof KeyBindingError)) throw error;
      const detail =
        error.failure === 'signature'
          ? { reason: 'key_binding_mismatch' }
          : error.failure === 'audience'
            ? { expected_audience: this.regionalIssuer }
            : { field: 'agent_credential' };
      throw oapError(codes[error.failure], error.message, { ...detail, format: 'sd_jwt' });
    }
  }

  private async checkSignature(kind: Kind, token: string, issuer: TrustedIssuer): Promise<void> {
    const code = CODES[kind].signature;
    let jwks;
    try {
      jwks = await this.jwks.get(issuer.jwks_uri);
    } catch (error) {
      if (error instanceof JwksError) throw oapError(code, 'The issuer JWKS could not be used', { reason: error.reason });
      throw error;
    }
    try {
      await compactVerify(token, createLocalJWKSet(jwks), { algorithms: EVIDENCE_ALGORITHMS });
    } catch (error) {
      if (error instanceof joseErrors.JOSEAlgNotAllowed || error instanceof joseErrors.JOSENotSupported)
        throw oapError(code, 'Unsupported signature algorithm', { reason: 'unsupported_alg' });
      if (error instanceof joseErrors.JWKSNoMatchingKey || error instanceof joseErrors.JWKSMultipleMatchingKeys)
        throw oapError(code, 'No key of the issuer JWKS matches', { reason: 'wrong_key' });
      if (error instanceof joseErrors.JOSEError) throw oapError(code, 'Signature verification failed', { reason: 'signature_mismatch' });
      throw error;
    }
  }

  private async consume(kind: Kind, payload: JWTPayload): Promise<void> {
    const now = this.clock.now();
    const expires = new Date((payload.exp! + EVIDENCE_SKEW_SECONDS) * 1000);
    const fresh = await this.replay.firstUse(
      kind === 'credential' ? 'agent_credential' : 'agent_attestation',
      `${payload.iss}\u0000${payload.jti}`,
      expires,
      now,
    );
    if (!fresh)
      throw oapError(
        CODES[kind].replayed,
        `This ${kind === 'credential' ? 'agent_credential' : 'agent_attestation'} (iss, jti) was already used`,
        { iss: payload.iss, jti: payload.jti },
      );
  }
}

/** Fields present on both sides with different values. */
function disagreeingFields(metadata: AgentMetadata | undefined, claims: JWTPayload, fields: readonly (keyof AgentMetadata)[]): string[] {
  if (!metadata) return [];
  return fields.filter(
    (f) => metadata[f] !== undefined && claims[f] !== undefined && claims[f] !== metadata[f] && f in AGENT_METADATA_LIMITS,
  );
}
