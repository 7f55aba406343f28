/**
 * OpenID4VCI authorization code flow through the region's OpenID provider (OpenID4VCI 1.0 §5.1.1):
 * a wallet asks for a credential with RFC 9396 `authorization_details` of type `openid_credential`
 * naming a `credential_configuration_id` of the region's credential issuer (receipts). The person
 * consents on the provider's page; the access token carries the details (also in the token
 * response and introspection), and the credential endpoint accepts it for that person only.
 */

/** RFC 9396 type of OpenID4VCI (§5.1.1). */
export const OPENID_CREDENTIAL = 'openid_credential';

/**
 * Credential configurations a wallet can ask for with the authorization code flow: those whose
 * subject is the signed-in person (`verified_person`) or something the person granted
 * (`authority_record`, with `authority_id`). Consent receipts are offered by the application that
 * holds the record (pre-authorized code), since a record names the person only by pseudonym.
 */
export const AUTHORIZATION_CODE_CREDENTIALS = ['verified_person', 'authority_record'] as const;
export type AuthorizationCodeCredential = (typeof AUTHORIZATION_CODE_CREDENTIALS)[number];

const AUTHORITY_ID = /^auth_[a-z]{2,4}_[a-z2-7]{20}$/;
const DETAIL_FIELDS = new Set(['type', 'credential_configuration_id', 'authority_id', 'locations']);

/** One authorization detail of type `openid_credential`. */
export type CredentialDetail = {
  type: typeof OPENID_CREDENTIAL;
  credential_configuration_id: AuthorizationCodeCredential;
  authority_id?: string;
  locations?: string[];
};

/**
 * Checks one `openid_credential` detail; the reason it is refused, or undefined. `locations`, when
 * present, must name the credential issuer (the region's base URL, OpenID4VCI §5.1.1).
 */
export function credentialDetailProblem(detail: Record<string, unknown>, issuer: string): string | undefined {
  const unknown = Object.keys(detail).find((name) => !DETAIL_FIELDS.has(name));
  if (unknown) return `'${unknown}' is not a field of an openid_credential authorization detail`;
  const id = detail.credential_configuration_id;
  if (typeof id !== 'string' || !(AUTHORIZATION_CODE_CREDENTIALS as readonly string[]).includes(id)) {
    return `'credential_configuration_id' must be one of ${AUTHORIZATION_CODE_CREDENTIALS.join(', ')}`;
  }
  if (id === 'authority_record') {
    if (typeof detail.authority_id !== 'string' || !AUTHORITY_ID.test(detail.authority_id))
      return "'authority_id' must be an authority id (auth_<region>_…) for authority_record";
  } else if (detail.authority_id !== undefined) {
    return "'authority_id' is only for authority_record";
  }
  const locations = detail.locations;
  if (
    locations !== undefined &&
    (!Array.isArray(locations) || locations.length === 0 || locations.some((location) => location !== issuer))
  ) {
    return `'locations' must name the credential issuer ${issuer}`;
  }
  return undefined;
}

/** Two details ask for the same credential (type, configuration, authority). */
export function sameCredential(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  return a.type === b.type && a.credential_configuration_id === b.credential_configuration_id && a.authority_id === b.authority_id;
}

interface RarContext {
  oidc: { params: { authorization_details?: unknown }; grant?: { rar?: Array<Record<string, unknown>> } };
}

/**
 * The provider's `features.richAuthorizationRequests`: the `openid_credential` type and its
 * policy. A code carries the requested details the person consented to (those in the grant); an
 * access token, those of the code or refresh token it was issued for; introspection shows them.
 */
export function richAuthorizationRequests(
  issuer: string,
  InvalidAuthorizationDetails: new (detail: string) => Error,
): Record<string, unknown> {
  return {
    enabled: true,
    types: {
      [OPENID_CREDENTIAL]: {
        validate: async (_ctx: unknown, detail: Record<string, unknown>) => {
          const problem = credentialDetailProblem(detail, issuer);
          if (problem) throw new InvalidAuthorizationDetails(problem);
        },
      },
    },
    authorizationDetailsForGrantSource: async (ctx: RarContext) => {
      const raw = ctx.oidc.params.authorization_details;
      const requested: Array<Record<string, unknown>> = typeof raw === 'string' ? (JSON.parse(raw) as Array<Record<string, unknown>>) : [];
      const consented = ctx.oidc.grant?.rar ?? [];
      return requested.filter((detail) => consented.some((granted) => sameCredential(granted, detail)));
    },
    authorizationDetailsForAccessToken: async (
      _ctx: unknown,
      _token: unknown,
      source: { rar?: Array<Record<string, unknown>> } | undefined,
    ) => source?.rar,
    authorizationDetailsForIntrospection: async (_ctx: unknown, token: { rar?: Array<Record<string, unknown>> }) => token.rar,
  };
}

/**
 * The provider's `features.resourceIndicators` (RFC 8707): a request with authorization details
 * is for the credential issuer (the region's base URL, where the credential endpoint is), which is
 * the only resource the provider knows; every other request stays without a resource, as before.
 * Its access tokens stay opaque, checked by the provider's own token store.
 */
export function credentialResourceIndicators(issuer: string, InvalidTarget: new (detail?: string) => Error): Record<string, unknown> {
  return {
    enabled: true,
    defaultResource: async (ctx: RarContext, _client: unknown, oneOf?: string[]) =>
      oneOf ?? (ctx.oidc.params.authorization_details !== undefined ? issuer : undefined),
    getResourceServerInfo: async (_ctx: unknown, resource: string) => {
      if (resource !== issuer) throw new InvalidTarget();
      return { scope: '', audience: issuer, accessTokenFormat: 'opaque' };
    },
    useGrantedResource: async () => false,
  };
}
