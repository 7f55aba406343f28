import { Controller } from '@nestjs/common';
import { BusConnection, RpcHandler, rpcClientOf, serveRpc, type RpcReplyInit, type RpcRequest, type RpcService } from '@svc/bus';
import { DomainError } from '@svc/errors';
import { TEST_NATS_URL, uniqueBusPrefix } from '@svc/testing';
import { AccessTokenResolver } from './access-token-resolver';
import { AccountAccessResolver } from './account-access-resolver';
import { accessReplyOf } from './access-rpc';

const KNOWN = 'K'.repeat(43);
const ACCOUNT_DIGEST = 'c'.repeat(64);
let asked: string[] = [];

/** Stands in for decision-gateway of the region. */
@Controller()
class GatewayStub {
  @RpcHandler('gateway.resolve_access_token')
  async resolveAccessToken(request: RpcRequest<'gateway.resolve_access_token'>): Promise<RpcReplyInit<'gateway.resolve_access_token'>> {
    asked.push(request.accessToken);
    if (request.accessToken !== KNOWN) return { found: false };
    return accessReplyOf({
      kind: 'access_token',
      applicationId: 'app_us_wallet',
      credentialId: 'client_1',
      scopes: ['openid', 'accounts'],
      environment: 'production',
      region: 'us',
      mode: 'conductor',
      personId: 'usr_us_1',
      authorizationDetails: [{ type: 'openid_credential', credential_configuration_id: 'consent_receipt' }],
    });
  }

  @RpcHandler('gateway.resolve_account_credential')
  async resolveAccountCredential(
    request: RpcRequest<'gateway.resolve_account_credential'>,
  ): Promise<RpcReplyInit<'gateway.resolve_account_credential'>> {
    if (request.accountTokenSha256Hex !== ACCOUNT_DIGEST) return { found: false };
    return accessReplyOf({
      kind: 'account_token',
      applicationId: '',
      credentialId: 'act_1',
      scopes: [],
      environment: 'production',
      region: 'us',
      mode: 'conductor',
      account: { id: 'acc_us_1', role: 'developer' },
    });
  }

  @RpcHandler('gateway.authorize_account')
  async authorizeAccount(request: RpcRequest<'gateway.authorize_account'>): Promise<RpcReplyInit<'gateway.authorize_account'>> {
    if (request.applicationId !== 'app_us_mine')
      throw new DomainError('not_found', 'application_not_found', 'Application not found', { application_id: request.applicationId });
    if (request.needed === 'owner')
      throw new DomainError('forbidden', 'account_role_insufficient', 'This needs the owner role in the account');
    const personId = request.actor.case === 'personId' ? request.actor.value : undefined;
    return accessReplyOf({
      kind: personId ? 'access_token' : 'account_token',
      applicationId: 'app_us_mine',
      credentialId: 'x',
      scopes: [],
      environment: 'development',
      region: 'us',
      mode: 'conductor',
      ...(personId ? { personId } : {}),
      account: { id: 'acc_us_1', role: 'admin' },
    });
  }
}

describe('access token and account resolvers: ask decision-gateway of the region when no verifier runs here', () => {
  const prefix = uniqueBusPrefix();
  let ownerBus: BusConnection;
  let callerBus: BusConnection;
  let silentBus: BusConnection;
  let owner: RpcService;

  beforeAll(async () => {
    ownerBus = await BusConnection.connect({ url: TEST_NATS_URL, prefix, region: 'us', name: 'gateway-stub' });
    callerBus = await BusConnection.connect({ url: TEST_NATS_URL, prefix, region: 'us', name: 'receipts' });
    // Same bus, a region nobody serves: the call goes unanswered.
    silentBus = await BusConnection.connect({ url: TEST_NATS_URL, prefix: uniqueBusPrefix(), region: 'us', name: 'alone' });
    owner = await serveRpc(ownerBus, [GatewayStub]);
    await ownerBus.nc.flush();
  });

  afterAll(async () => {
    await owner?.close();
    await silentBus?.close();
    await callerBus?.close();
    await ownerBus?.close();
  });

  beforeEach(() => {
    asked = [];
  });

  it('resolves a person access token through gateway.resolve_access_token, with person, scopes and authorization details', async () => {
    const resolver = new AccessTokenResolver(rpcClientOf(callerBus));
    await expect(resolver.resolve(KNOWN)).resolves.toEqual({
      kind: 'access_token',
      applicationId: 'app_us_wallet',
      credentialId: 'client_1',
      scopes: ['openid', 'accounts'],
      environment: 'production',
      region: 'us',
      mode: 'conductor',
      personId: 'usr_us_1',
      authorizationDetails: [{ type: 'openid_credential', credential_configuration_id: 'consent_receipt' }],
    });
    await expect(resolver.resolve('U'.repeat(43))).resolves.toBeNull();
    expect(asked).toEqual([KNOWN, 'U'.repeat(43)]);
  });

  it('never caches: every resolve asks again, so a revoked token stops working at once', async () => {
    const resolver = new AccessTokenResolver(rpcClientOf(callerBus));
    await resolver.resolve(KNOWN);
    await resolver.resolve(KNOWN);
    expect(asked).toEqual([KNOWN, KNOWN]);
  });

  it('uses the locally registered verifier when there is one and does not ask the bus', async () => {
    const resolver = new AccessTokenResolver(rpcClientOf(callerBus));
    resolver.register({ verify: async () => null });
    await expect(resolver.resolve(KNOWN)).resolves.toBeNull();
    expect(asked).toEqual([]);
  });

  it('answers "not found" when nobody answers the call (no 500)', async () => {
    const resolver = new AccessTokenResolver(rpcClientOf(silentBus));
    await expect(resolver.resolve(KNOWN)).resolves.toBeNull();
    const accounts = new AccountAccessResolver(rpcClientOf(silentBus));
    await expect(accounts.resolveAccountToken(ACCOUNT_DIGEST)).resolves.toBeNull();
    await expect(accounts.authorize({ personId: 'usr_us_1' }, 'app_us_mine', 'developer')).resolves.toBeNull();
  }, 30_000);

  it('resolves account tokens and authorizes account actors over the bus, passing the owner refusals through', async () => {
    const accounts = new AccountAccessResolver(rpcClientOf(callerBus));
    await expect(accounts.resolveAccountToken(ACCOUNT_DIGEST)).resolves.toMatchObject({
      kind: 'account_token',
      credentialId: 'act_1',
      account: { id: 'acc_us_1', role: 'developer' },
    });
    await expect(accounts.resolveAccountToken('d'.repeat(64))).resolves.toBeNull();
    await expect(accounts.authorize({ personId: 'usr_us_1' }, 'app_us_mine', 'developer')).resolves.toMatchObject({
      kind: 'access_token',
      applicationId: 'app_us_mine',
      personId: 'usr_us_1',
      account: { id: 'acc_us_1', role: 'admin' },
    });
    await expect(
      accounts.authorize({ accountTokenId: 'act_1', accountId: 'acc_us_1', role: 'developer' }, 'app_us_mine', 'auditor'),
    ).resolves.toMatchObject({ kind: 'account_token' });
    await expect(accounts.authorize({ personId: 'usr_us_1' }, 'app_us_other', 'developer')).rejects.toMatchObject({
      kind: 'not_found',
      code: 'application_not_found',
    });
    await expect(accounts.authorize({ personId: 'usr_us_1' }, 'app_us_mine', 'owner')).rejects.toMatchObject({
      kind: 'forbidden',
      code: 'account_role_insufficient',
    });
  });
});
