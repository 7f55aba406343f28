import { Injectable } from '@nestjs/common';
import { PlatformConfig } from '@svc/config';
import { signCompactJws, type ActiveSigningKey } from '@svc/crypto';
import { SigningKeyStore } from '@svc/key-store';
import { newId } from '@svc/ids';
import { OAP_VERSION, OVERSIGHT_CONFORMANCE } from '../schema';

/** Header `typ` of runtime receipts (spec, Runtime receipts). */
export const WITNESS_RECEIPT_TYP = 'oap+jwt';

/** Lifetime of a witness receipt, seconds (spec: `exp` 1 h after `iat`). */
export const WITNESS_RECEIPT_TTL_SECONDS = 3600;

/** Hard ceiling of a runtime receipt, bytes (spec: "under 2 KB"). */
export const MAX_WITNESS_RECEIPT_BYTES = 2047;

/** Longest `policy_ref` / `policy_version` taken from an attestation's context, characters. */
export const MAX_POLICY_CLAIM_LENGTH = 128;

/**
 * The `decision` claim: what the engine attested (`allow`, `deny`, `escalate`), or how a human
 * resolved an escalation (`approved`, `denied`, `countered`).
 */
export type WitnessedDecision = 'allow' | 'deny' | 'escalate' | 'approved' | 'denied' | 'countered';

/** What a witness receipt states. */
export interface WitnessReceiptInput {
  attestationId: string;
  decision: WitnessedDecision;
  legalBasis: string;
  policyRef: string;
  policyVersion: string | null;
  /** `sha256:<64-hex>` of the canonical attestation request. */
  attestationDigest: string;
  issuedAt: Date;
}

/** A signed witness receipt. */
export interface SignedWitnessReceipt {
  token: string;
  jti: string;
  claims: Record<string, unknown>;
}

/**
 * `policy_ref` / `policy_version` claims: the attestation request has no such fields, so an engine
 * names its policy in `context.policy_ref` / `context.policy_version` (strings ≤ 128); without
 * them `policy_ref` is the trusted attester id (the engine that decided) and `policy_version` null.
 */
export function policyClaims(
  context: Record<string, unknown> | null,
  attesterId: string,
): { policyRef: string; policyVersion: string | null } {
  const pick = (value: unknown): string | undefined =>
    typeof value === 'string' && value.length > 0 && value.length <= MAX_POLICY_CLAIM_LENGTH ? value : undefined;
  return { policyRef: pick(context?.policy_ref) ?? attesterId, policyVersion: pick(context?.policy_version) ?? null };
}

/**
 * Signs witness runtime receipts: compact JWS, header `{alg: EdDSA, typ: oap+jwt, kid:
 * oap-<region>-vN}`, the witness claims of the spec's table (`iss_role` `witness`, `jti`
 * `wrec_…`, `exp` = `iat` + 3600, `sub` = attestation id). Every claim is bounded, so a receipt
 * stays far under 2 KB; exceeding it is a bug and throws.
 */
@Injectable()
export class WitnessReceiptSigner {
  constructor(
    private readonly keys: SigningKeyStore,
    private readonly config: PlatformConfig,
  ) {}

  /** The regional issuer URI, the receipts' `iss`. */
  get issuer(): string {
    return this.config.publicBaseUrl;
  }

  /**
   * The key receipts are signed with now. Read it before opening the transaction a receipt is
   * signed in: on a cold cache the key store reads the database through the pool, and a
   * transaction that waits for a second connection while it holds a lock others queue behind (with
   * their connections) stalls its pool until the acquire timeout.
   */
  signingKey(): Promise<ActiveSigningKey> {
    return this.keys.activeKey();
  }

  /** Signs one receipt with `key` (from {@link signingKey}); touches no database. */
  async sign(key: ActiveSigningKey, input: WitnessReceiptInput): Promise<SignedWitnessReceipt> {
    const iat = Math.floor(input.issuedAt.getTime() / 1000);
    const jti = newId('witness_receipt');
    const claims: Record<string, unknown> = {
      iss: this.issuer,
      iss_role: 'witness',
      oap_ver: OAP_VERSION,
      oap_conformance: OVERSIGHT_CONFORMANCE,
      jti,
      iat,
      exp: iat + WITNESS_RECEIPT_TTL_SECONDS,
      sub: input.attestationId,
      decision: input.decision,
      legal_basis: input.legalBasis,
      policy_ref: input.policyRef,
      policy_version: input.policyVersion,
      attestation_digest: input.attestationDigest,
    };
    const token = await signCompactJws(key, claims, { typ: WITNESS_RECEIPT_TYP });
    if (Buffer.byteLength(token) > MAX_WITNESS_RECEIPT_BYTES) throw new Error(`witness receipt of ${token.length} bytes exceeds 2 KB`);
    return { token, jti, claims };
  }
}
