/**
 * The did:web identifier of a region's public base URL (did:web method, §3.1): the host, with a
 * port percent-encoded (`:` → `%3A`), then each path segment after a `:`.
 * `https://us.svc.example` → `did:web:us.svc.example`; `http://127.0.0.1:8081` → `did:web:127.0.0.1%3A8081`.
 */
export function didWebOf(baseUrl: string): string {
  const url = new URL(baseUrl);
  const host = url.port ? `${url.hostname}%3A${url.port}` : url.hostname;
  const path = url.pathname
    .split('/')
    .filter((segment) => segment.length > 0)
    .map(encodeURIComponent);
  return ['did', 'web', host, ...path].join(':');
}

/** The DID URL of one of the region's keys (the verification method id). */
export function verificationMethodId(did: string, kid: string): string {
  return `${did}#${kid}`;
}

/** `vct` of each credential type: URNs, so no verifier fetches type metadata from us. */
export const CREDENTIAL_VCT = {
  consent_receipt: 'urn:svc:vct:consent_receipt:1',
  verified_person: 'urn:svc:vct:verified_person:1',
  registered_agent: 'urn:svc:vct:registered_agent:1',
  authority_record: 'urn:svc:vct:authority_record:1',
} as const;

export type CredentialType = keyof typeof CREDENTIAL_VCT;
export const CREDENTIAL_TYPES = Object.keys(CREDENTIAL_VCT) as CredentialType[];

/** The SD-JWT VC media type / OpenID4VCI format identifier (draft-ietf-oauth-sd-jwt-vc, §3.1). */
export const SD_JWT_VC_FORMAT = 'dc+sd-jwt';

/** Path of a status list; its id is `<region>-<n>`. */
export const STATUS_LIST_PATH = '/.well-known/credential-status';
