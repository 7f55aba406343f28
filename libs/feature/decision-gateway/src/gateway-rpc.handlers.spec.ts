import { create } from '@bufbuild/protobuf';
import { AccessTokenResolver, AccountAccessResolver, type ResolvedCredential } from '@svc/auth';
import type { RpcRequest } from '@svc/bus';
import { AuthorizeAccountRequestSchema, ResolveAccessTokenRequestSchema, ResolveAccountCredentialRequestSchema } from '@svc/contracts';
import type { ApplicationsRepository } from './applications/applications.repository';
import type { ComplyService } from './comply/comply.service';
import { GatewayRpcHandlers } from './gateway-rpc.handlers';
import type { TrustPairingsRepository } from './trust-pairings/trust-pairings.repository';

const PERSON_TOKEN: ResolvedCredential = {
  kind: 'access_token',
  applicationId: 'app_1',
  credentialId: 'client_1',
  scopes: ['openid'],
  environment: 'production',
  region: 'us',
  mode: 'conductor',
  personId: 'usr_us_1',
  authorizationDetails: [{ type: 'openid_credential' }],
};

function handlers(accessTokens: AccessTokenResolver, accounts: AccountAccessResolver): GatewayRpcHandlers {
  return new GatewayRpcHandlers({} as ApplicationsRepository, {} as ComplyService, {} as TrustPairingsRepository, accessTokens, accounts);
}

describe('gateway RPC handlers for access tokens and account credentials', () => {
  it('answers an access token from the verifier registered in this process only', async () => {
    const accessTokens = new AccessTokenResolver();
    const rpc = handlers(accessTokens, new AccountAccessResolver());
    const request = create(ResolveAccessTokenRequestSchema, { accessToken: 'T'.repeat(43) }) as RpcRequest<'gateway.resolve_access_token'>;
    await expect(rpc.resolveAccessToken(request)).resolves.toEqual({ found: false });
    accessTokens.register({ verify: async (token) => (token === 'T'.repeat(43) ? PERSON_TOKEN : null) });
    await expect(rpc.resolveAccessToken(request)).resolves.toMatchObject({
      found: true,
      personId: 'usr_us_1',
      authorizationDetailsJson: '[{"type":"openid_credential"}]',
    });
  });

  it('answers account questions from the registered accounts owner, refusing malformed roles and digests', async () => {
    const accounts = new AccountAccessResolver();
    const rpc = handlers(new AccessTokenResolver(), accounts);
    const digest = create(ResolveAccountCredentialRequestSchema, {
      accountTokenSha256Hex: 'a'.repeat(64),
    }) as RpcRequest<'gateway.resolve_account_credential'>;
    await expect(rpc.resolveAccountCredential(digest)).resolves.toEqual({ found: false });
    const authorized: unknown[] = [];
    accounts.register({
      resolveAccountToken: async () => ({
        kind: 'account_token',
        applicationId: '',
        credentialId: 'act_1',
        scopes: [],
        environment: 'production',
        region: 'us',
        mode: 'conductor',
        account: { id: 'acc_1', role: 'admin' },
      }),
      authorize: async (actor, applicationId, needed) => {
        authorized.push([actor, applicationId, needed]);
        return { ...PERSON_TOKEN, applicationId, account: { id: 'acc_1', role: 'owner' } };
      },
    });
    await expect(rpc.resolveAccountCredential(digest)).resolves.toMatchObject({
      found: true,
      kind: 'account_token',
      accountId: 'acc_1',
      accountRole: 'admin',
    });
    const bad = create(ResolveAccountCredentialRequestSchema, {
      accountTokenSha256Hex: 'not-a-digest',
    }) as RpcRequest<'gateway.resolve_account_credential'>;
    await expect(rpc.resolveAccountCredential(bad)).resolves.toEqual({ found: false });

    const ask = (init: Parameters<typeof create<typeof AuthorizeAccountRequestSchema>>[1]) =>
      rpc.authorizeAccount(create(AuthorizeAccountRequestSchema, init) as RpcRequest<'gateway.authorize_account'>);
    await expect(
      ask({ actor: { case: 'personId', value: 'usr_us_1' }, applicationId: 'app_2', needed: 'developer' }),
    ).resolves.toMatchObject({ found: true, applicationId: 'app_2', accountRole: 'owner' });
    await expect(
      ask({
        actor: { case: 'accountToken', value: { accountTokenId: 'act_1', accountId: 'acc_1', role: 'auditor' } },
        applicationId: 'app_2',
        needed: 'auditor',
      }),
    ).resolves.toMatchObject({ found: true });
    await expect(
      ask({
        actor: { case: 'accountToken', value: { accountTokenId: 'act_1', accountId: 'acc_1', role: 'root' } },
        applicationId: 'app_2',
        needed: 'auditor',
      }),
    ).resolves.toEqual({ found: false });
    await expect(ask({ actor: { case: 'personId', value: 'usr_us_1' }, applicationId: 'app_2', needed: 'superuser' })).resolves.toEqual({
      found: false,
    });
    await expect(ask({ applicationId: 'app_2', needed: 'auditor' })).resolves.toEqual({ found: false });
    expect(authorized).toEqual([
      [{ personId: 'usr_us_1' }, 'app_2', 'developer'],
      [{ accountTokenId: 'act_1', accountId: 'acc_1', role: 'auditor' }, 'app_2', 'auditor'],
    ]);
  });
});
