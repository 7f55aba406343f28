import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { PlatformConfig } from '@svc/config';
import { canonicalJson, sha256Hex, signCompactJws } from '@svc/crypto';
import { SigningKeyStore } from '@svc/key-store';
import type { AgentMetadata } from '../agents/agent-metadata';
import { OAP_CONFORMANCE, OAP_VERSION } from '../schema';
import type { DelegationHop } from './checks/cascade-step';

/** Header `typ` of every runtime receipt. */
export const RECEIPT_TYP = 'oap+jwt';

/** Hard ceiling of a runtime receipt, bytes (spec: "under 2 KB"). */
export const MAX_RECEIPT_BYTES = 2047;

/** Longest lifetime of an authorizer receipt, seconds; shorter when the grant ends sooner. */
export const RECEIPT_MAX_TTL_SECONDS = 3600;

/** The attestation overlay (never the attestation JWT itself). */
export interface AttestationOverlay {
  format: string;
  iss: string;
  jti: string;
  iat: number;
  exp: number;
  /** SHA-256 hex of the attestation JWT's compact form. */
  claims_digest: string;
}

/** What an authorizer receipt states. */
export interface AuthorizerReceiptInput {
  grantId: string;
  applicationId: string;
  scopes: string[];
  actions: string[];
  value?: { amount: string; currency: string };
  /** Audit chain the allow is appended to. */
  chronicleId: string;
  contextHash: string;
  issuedAt: Date;
  grantValidUntil: Date;
  metadata?: AgentMetadata;
  delegationChain: DelegationHop[];
  attestation?: AttestationOverlay;
}

/** A signed receipt. */
export interface SignedReceipt {
  token: string;
  jti: string;
  claims: Record<string, unknown>;
}

/**
 * Signs authorizer runtime receipts: compact JWS, EdDSA, `typ: oap+jwt`, `kid: oap-<region>-v<N>`,
 * the authorizer claims of the spec's table plus the metadata and attestation overlays. A receipt
 * always stays under 2 KB: when the overlays would push it over, the longest overlay values are
 * replaced by their `sha256:` digests (the full values stay in the grant's stored request).
 */
@Injectable()
export class ReceiptSigner {
  constructor(
    private readonly keys: SigningKeyStore,
    private readonly config: PlatformConfig,
  ) {}

  /** The regional issuer URI (`{region_url}`), the receipts' `iss`. */
  get issuer(): string {
    return this.config.publicBaseUrl;
  }

  async signAuthorizerReceipt(input: AuthorizerReceiptInput): Promise<SignedReceipt> {
    const iat = Math.floor(input.issuedAt.getTime() / 1000);
    const exp = Math.min(iat + RECEIPT_MAX_TTL_SECONDS, Math.floor(input.grantValidUntil.getTime() / 1000));
    const jti = randomUUID();
    const claims: Record<string, unknown> = {
      iss: this.issuer,
      iss_role: 'authorizer',
      oap_ver: OAP_VERSION,
      oap_conformance: OAP_CONFORMANCE,
      jti,
      iat,
      exp,
      aud: input.applicationId,
      grant_id: input.grantId,
      action: input.actions.join(' '),
      scope: input.scopes.join(' '),
      value: input.value?.amount ?? null,
      currency: input.value?.currency ?? null,
      chronicle_id: input.chronicleId,
      single_use: true,
      context_hash: input.contextHash,
    };
    const overlay: Record<string, unknown> = { ...(input.metadata ?? {}) };
    if (input.delegationChain.length > 0) {
      overlay.delegation_chain = input.delegationChain.map((h) => ({
        iss: h.iss,
        sub: h.sub,
        aud: h.aud,
        delegated_at: h.delegated_at,
        jti: h.jti,
      }));
    }
    if (input.attestation && input.attestation.exp > iat) claims.agent_attestation = input.attestation;
    const key = await this.keys.activeKey();
    let token = await signCompactJws(key, { ...claims, ...overlay }, { typ: RECEIPT_TYP });
    while (Buffer.byteLength(token) > MAX_RECEIPT_BYTES) {
      const longest = Object.entries(overlay)
        .filter(([, v]) => !(typeof v === 'string' && v.startsWith('sha256:')))
        .sort(([, a], [, b]) => canonicalJson(b).length - canonicalJson(a).length)[0];
      if (!longest) throw new Error('runtime receipt exceeds 2 KB without overlays');
      overlay[longest[0]] = `sha256:${sha256Hex(canonicalJson(longest[1]))}`;
      token = await signCompactJws(key, { ...claims, ...overlay }, { typ: RECEIPT_TYP });
    }
    return { token, jti, claims: { ...claims, ...overlay } };
  }
}
