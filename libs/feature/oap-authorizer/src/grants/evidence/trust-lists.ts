import { readFileSync } from 'node:fs';
import { Injectable } from '@nestjs/common';

/** A trusted OIDC-A credential issuer or attestation provider. */
export interface TrustedIssuer {
  iss: string;
  jwks_uri: string;
  /** Allowed `kid`s; absent means any key of the JWKS. */
  kids?: string[];
  /** Revoked `kid`s (attestation providers: `agent_attestation_kid_revoked`). */
  revoked_kids?: string[];
  /** Regions the issuer is trusted in; absent means every region. */
  regions?: string[];
}

/** The deploy-managed trust lists (spec, Authentication rule 13: not changeable through the API). */
export interface TrustListDocument {
  agent_credential_issuers: TrustedIssuer[];
  attestation_providers: TrustedIssuer[];
}

/**
 * Reads the trust lists once at boot from `OAP_TRUST_LISTS_FILE` (a JSON file shipped with the
 * deployment, e.g. a mounted ConfigMap) or `OAP_TRUST_LISTS` (the same JSON inline). Neither set
 * means both lists are empty: every credential and attestation is from an untrusted issuer.
 * A malformed document fails the boot rather than silently trusting nobody.
 */
@Injectable()
export class TrustLists {
  readonly document: TrustListDocument;

  constructor() {
    this.document = TrustLists.load(process.env);
  }

  static load(env: Record<string, string | undefined>): TrustListDocument {
    const raw = env.OAP_TRUST_LISTS_FILE ? readFileSync(env.OAP_TRUST_LISTS_FILE, 'utf8') : env.OAP_TRUST_LISTS;
    if (!raw) return { agent_credential_issuers: [], attestation_providers: [] };
    const parsed = JSON.parse(raw) as Partial<TrustListDocument>;
    const list = (value: unknown, name: string): TrustedIssuer[] => {
      if (value === undefined) return [];
      if (!Array.isArray(value) || !value.every((e) => typeof e?.iss === 'string' && typeof e?.jwks_uri === 'string')) {
        throw new Error(`OAP trust lists: ${name} must be an array of {iss, jwks_uri, kids?, revoked_kids?, regions?}`);
      }
      return value as TrustedIssuer[];
    };
    return { agent_credential_issuers: list(parsed.agent_credential_issuers, 'agent_credential_issuers'), attestation_providers: list(parsed.attestation_providers, 'attestation_providers') };
  }

  credentialIssuer(iss: string, region: string): TrustedIssuer | undefined {
    return this.document.agent_credential_issuers.find((i) => i.iss === iss && (!i.regions || i.regions.includes(region)));
  }

  attestationProvider(iss: string, region: string): TrustedIssuer | undefined {
    return this.document.attestation_providers.find((i) => i.iss === iss && (!i.regions || i.regions.includes(region)));
  }
}
