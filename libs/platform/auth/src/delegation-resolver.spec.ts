import { NoDelegationGrants, delegationTargetOf } from './delegation-resolver';
import type { Principal } from './principal';

describe('delegationTargetOf', () => {
  it.each([
    ['GET', '/api/v1/me', { surface: 'me', action: 'read' }],
    ['HEAD', '/api/v1/decisions/ds_x?expand=1', { surface: 'decisions', action: 'read' }],
    ['POST', '/api/v1/decisions', { surface: 'decisions', action: 'write' }],
    ['DELETE', '/api/v1/applications/tp_us_x/oauth_clients/c', { surface: 'applications', action: 'write' }],
    ['POST', '/oauth/token', { surface: 'oauth', action: 'write' }],
    ['GET', '/', { surface: '', action: 'read' }],
  ] as const)('%s %s', (method, url, expected) => {
    expect(delegationTargetOf(method, url)).toEqual(expected);
  });
});

describe('NoDelegationGrants', () => {
  const delegate = {
    kind: 'access_token',
    applicationId: 'tp_us_x',
    credentialId: 'c',
    scopes: [],
    environment: 'development',
    region: 'us',
    mode: 'oversight',
    personId: 'usr_us_x',
  } satisfies Principal;

  it('refuses every grant with a coded 403 until a checker is registered, then asks the checker', async () => {
    const resolver = new NoDelegationGrants();
    await expect(resolver.resolve('dlg_us_abcdefghijklmnopqrst', delegate, { surface: 'me', action: 'read' })).rejects.toMatchObject({
      code: 'delegation_grant_not_found',
    });
    resolver.register({ check: async (grantId, d) => ({ grantId, principalId: 'usr_us_p', delegateId: d.personId!, type: 'peer' }) });
    await expect(resolver.resolve('dlg_us_abcdefghijklmnopqrst', delegate, { surface: 'me', action: 'read' })).resolves.toEqual({
      grantId: 'dlg_us_abcdefghijklmnopqrst',
      principalId: 'usr_us_p',
      delegateId: 'usr_us_x',
      type: 'peer',
    });
  });
});
