import { signCompactJws, type ActiveSigningKey, type SigningJwk } from '@svc/crypto';
import { EVIDENCE_PACKAGE_TYP } from '../evidence/verify-evidence-package';

/** What an evidence package holds (the JWS payload); verified offline by `svc-audit verify-evidence`. */
export interface EvidencePackageContent {
  readonly object: 'evidence_package';
  readonly format: 1;
  readonly kind: 'transfer_register' | 'residency_posture';
  readonly region: string;
  readonly country: string;
  readonly application_id: string;
  readonly period: { readonly from: string; readonly to: string };
  readonly generated_at: string;
  readonly adequacy_table: { readonly version: string; readonly source: string };
  readonly transfers: Record<string, unknown>[];
  readonly posture: Record<string, unknown>;
  /** Inclusion proofs of every transfer's audit entry against one signed checkpoint; null when there is no transfer. */
  readonly audit: { checkpoint: Record<string, unknown>; proofs: Record<string, unknown>[] } | null;
  /** The region's public keys (its published JWKS) at generation time. */
  readonly jwks: { keys: SigningJwk[] };
}

/** Signs a package with the region's active key as a compact JWS (canonical JSON payload). */
export function signEvidencePackage(key: ActiveSigningKey, content: EvidencePackageContent): Promise<string> {
  return signCompactJws(key, content as unknown as Record<string, unknown>, { typ: EVIDENCE_PACKAGE_TYP });
}
