/**
 * The deploy-managed trust list of presentation verification (spec, Authentication rule 13: not
 * changeable through the API). Each entry names an issuer (`iss` of the credential: a did:web or
 * an https URL) and where its keys are published: a DID document (`did_document_url`) or a JWKS
 * (`jwks_uri`). Status lists are fetched only from the origin of that URL, so a credential cannot
 * make the verifier call an address of its choosing.
 */
export interface TrustedIssuer {
  issuer: string;
  did_document_url?: string;
  jwks_uri?: string;
  /** The deployment region the issuer is, when it is one (set for the default entries). */
  region?: string;
  country?: string;
}

export interface TrustListDocument {
  issuers: TrustedIssuer[];
}

/** Parses and checks a trust list document; throws with the reason. */
export function parseTrustList(json: string): TrustListDocument {
  const value: unknown = JSON.parse(json);
  if (typeof value !== 'object' || value === null || !Array.isArray((value as { issuers?: unknown }).issuers))
    throw new Error('expected {"issuers": [...]}');
  const issuers = (value as { issuers: unknown[] }).issuers.map((entry, index) => {
    if (typeof entry !== 'object' || entry === null) throw new Error(`issuers[${index}] must be an object`);
    const { issuer, did_document_url: didDocumentUrl, jwks_uri: jwksUri } = entry as Record<string, unknown>;
    if (typeof issuer !== 'string' || !(issuer.startsWith('did:web:') || issuer.startsWith('https://')))
      throw new Error(`issuers[${index}].issuer must be a did:web or an https URL`);
    if ((typeof didDocumentUrl === 'string') === (typeof jwksUri === 'string'))
      throw new Error(`issuers[${index}] needs exactly one of did_document_url and jwks_uri`);
    const url = (didDocumentUrl ?? jwksUri) as string;
    if (!/^https?:\/\//.test(url)) throw new Error(`issuers[${index}] key URL must be http(s)`);
    return { issuer, ...(typeof didDocumentUrl === 'string' ? { did_document_url: didDocumentUrl } : { jwks_uri: jwksUri as string }) };
  });
  return { issuers };
}
