import { http } from '@svc/testing';
import { startRegions, type TestRegions } from '../support/regions';

/** Spec: Authentication rule 11; OAuth clients are homed in their region (`oac_<region>_…`). */
describe('OpenID provider residency', () => {
  let stack: TestRegions;
  beforeAll(async () => {
    stack = await startRegions('oauth_residency', { regions: ['us', 'eu'] });
  });
  afterAll(() => stack?.close());

  it('answers 421 naming the home country for a foreign client at authorize, before the provider sees it', async () => {
    const query = new URLSearchParams({ client_id: 'oac_eu_abcdefghijklmnopqrst', request_uri: 'urn:ietf:params:oauth:request_uri:x' });
    const res = await http('GET', `${stack.url.us}/oauth/authorize?${query}`);
    expect(res.status).toBe(421);
    expect(res.body).toMatchObject({ reason_code: 'wrong_region', home_country: 'DE', detail: { home_region: 'eu' } });
  });

  it('serves each region its own issuer', async () => {
    for (const region of ['us', 'eu'] as const) {
      const res = await http('GET', `${stack.url[region]}/.well-known/openid-configuration`);
      expect(res.status).toBe(200);
      expect(res.body.issuer).toBe(stack.url[region]);
    }
  });
});
