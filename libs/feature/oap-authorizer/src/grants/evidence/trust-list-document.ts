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
 * Parses the trust lists' JSON; none means both lists are empty: every credential and attestation
 * is from an untrusted issuer. A malformed document throws (the config check fails the boot with
 * the variable's name) rather than silently trusting nobody.
 */
export function parseTrustLists(raw: string | undefined): TrustListDocument {
  if (!raw) return { agent_credential_issuers: [], attestation_providers: [] };
  const parsed = JSON.parse(raw) as Partial<TrustListDocument>;
  const list = (value: unknown, name: string): TrustedIssuer[] => {
    if (value === undefined) return [];
    if (!Array.isArray(value) || !value.every((e) => typeof e?.iss === 'string' && typeof e?.jwks_uri === 'string')) {
      throw new Error(`OAP trust lists: ${name} must be an array of {iss, jwks_uri, kids?, revoked_kids?, regions?}`);
    }
    return value as TrustedIssuer[];
  };
  return {
    agent_credential_issuers: list(parsed.agent_credential_issuers, 'agent_credential_issuers'),
    attestation_providers: list(parsed.attestation_providers, 'attestation_providers'),
  };
}
