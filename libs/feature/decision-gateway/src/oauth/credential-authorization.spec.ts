import {
  credentialDetailProblem,
  credentialResourceIndicators,
  richAuthorizationRequests,
  sameCredential,
} from './credential-authorization';

const ISSUER = 'https://us.svc.example';
const AUTHORITY = 'auth_us_abcdefghijklmnopqrst';

describe('openid_credential authorization details (OpenID4VCI §5.1.1)', () => {
  it('takes verified_person, and authority_record with an authority id, optionally located at the issuer', () => {
    expect(credentialDetailProblem({ type: 'openid_credential', credential_configuration_id: 'verified_person' }, ISSUER)).toBeUndefined();
    expect(
      credentialDetailProblem(
        { type: 'openid_credential', credential_configuration_id: 'authority_record', authority_id: AUTHORITY, locations: [ISSUER] },
        ISSUER,
      ),
    ).toBeUndefined();
  });

  it('refuses other configurations, a missing or stray authority id, foreign locations and unknown fields', () => {
    const problems = [
      { type: 'openid_credential', credential_configuration_id: 'consent_receipt' },
      { type: 'openid_credential', credential_configuration_id: 'registered_agent' },
      { type: 'openid_credential' },
      { type: 'openid_credential', credential_configuration_id: 'authority_record' },
      { type: 'openid_credential', credential_configuration_id: 'authority_record', authority_id: 'auth_us_x' },
      { type: 'openid_credential', credential_configuration_id: 'verified_person', authority_id: AUTHORITY },
      { type: 'openid_credential', credential_configuration_id: 'verified_person', locations: ['https://elsewhere.example'] },
      { type: 'openid_credential', credential_configuration_id: 'verified_person', locations: [] },
      { type: 'openid_credential', credential_configuration_id: 'verified_person', claims: [] },
    ].map((detail) => credentialDetailProblem(detail, ISSUER));
    expect(problems.every((problem) => typeof problem === 'string')).toBe(true);
  });

  it('puts on a code only what was requested and consented to', async () => {
    const rar = richAuthorizationRequests(ISSUER, Error) as { authorizationDetailsForGrantSource: (ctx: unknown) => Promise<unknown> };
    const person = { type: 'openid_credential', credential_configuration_id: 'verified_person' };
    const authority = { type: 'openid_credential', credential_configuration_id: 'authority_record', authority_id: AUTHORITY };
    const ctx = (requested: unknown[] | undefined, consented: unknown[]) => ({
      oidc: { params: { authorization_details: requested ? JSON.stringify(requested) : undefined }, grant: { rar: consented } },
    });
    await expect(rar.authorizationDetailsForGrantSource(ctx([person, authority], [person]))).resolves.toEqual([person]);
    await expect(rar.authorizationDetailsForGrantSource(ctx(undefined, [person]))).resolves.toEqual([]);
    expect(sameCredential(authority, { ...authority, authority_id: 'auth_us_bbbbbbbbbbbbbbbbbbbb' })).toBe(false);
  });

  it('gives a request with details the issuer as resource, and knows no other resource', async () => {
    const indicators = credentialResourceIndicators(ISSUER, Error) as {
      defaultResource: (ctx: unknown, client: unknown, oneOf?: string[]) => Promise<unknown>;
      getResourceServerInfo: (ctx: unknown, resource: string) => Promise<unknown>;
    };
    await expect(indicators.defaultResource({ oidc: { params: { authorization_details: '[]' } } }, {})).resolves.toBe(ISSUER);
    await expect(indicators.defaultResource({ oidc: { params: {} } }, {})).resolves.toBeUndefined();
    await expect(indicators.getResourceServerInfo({}, ISSUER)).resolves.toMatchObject({ audience: ISSUER, accessTokenFormat: 'opaque' });
    await expect(indicators.getResourceServerInfo({}, 'https://elsewhere.example')).rejects.toThrow();
  });
});
