import { Controller } from '@nestjs/common';
import { BusConnection, RpcHandler, rpcClientOf, serveRpc, type RpcReplyInit, type RpcRequest, type RpcService } from '@svc/bus';
import { TEST_NATS_URL, TcpProxy, uniqueBusPrefix, waitFor } from '@svc/testing';
import { CREDENTIAL_CACHE_MS, RpcCredentialResolver } from './credential-resolver';

const KNOWN = 'a'.repeat(64);
const OTHER_KNOWN = 'b'.repeat(64);
let asked = 0;

@Controller()
class CredentialOwner {
  @RpcHandler('gateway.resolve_credential')
  async resolve(request: RpcRequest<'gateway.resolve_credential'>): Promise<RpcReplyInit<'gateway.resolve_credential'>> {
    asked += 1;
    const digest = request.credential.case === 'apiTokenSha256Hex' ? request.credential.value : '';
    if (digest !== KNOWN && digest !== OTHER_KNOWN) return { found: false };
    return {
      found: true,
      applicationId: 'tp_us_app',
      credentialId: `tok_${digest.slice(0, 4)}`,
      scopes: ['records:write'],
      environment: 'development',
      region: 'us',
      mode: 'conductor',
    };
  }
}

/**
 * Issue 14 item 8: when the owner of credentials cannot be asked (the bus is down), a known
 * credential keeps working from its last answer for a bounded time, never forever.
 */
describe('credential resolver: stale-while-error cache (owner in another process, bus behind a proxy the test cuts)', () => {
  const prefix = uniqueBusPrefix();
  let proxy: TcpProxy;
  let ownerBus: BusConnection;
  let callerBus: BusConnection;
  let owner: RpcService;
  let clockMs = Date.parse('2026-11-25T12:00:00Z');

  function resolver(staleIfErrorMs: number): RpcCredentialResolver {
    return new RpcCredentialResolver(rpcClientOf(callerBus), { staleIfErrorMs, now: () => clockMs });
  }

  beforeAll(async () => {
    proxy = await TcpProxy.start(TEST_NATS_URL);
    ownerBus = await BusConnection.connect({ url: TEST_NATS_URL, prefix, region: 'us', name: 'credential-owner' });
    callerBus = await BusConnection.connect({ url: proxy.url('nats'), prefix, region: 'us', name: 'credential-caller' });
    owner = await serveRpc(ownerBus, [CredentialOwner]);
    await ownerBus.nc.flush();
  });

  afterAll(async () => {
    await owner?.close();
    proxy?.restore();
    await callerBus?.close();
    await ownerBus?.close();
    await proxy?.close();
  });

  afterEach(async () => {
    proxy.restore();
    await waitFor(() => callerBus.isReachable(500), 10_000);
  });

  it('serves the last answer during an outage longer than the 5 s cache, then refuses once the configured bound has passed', async () => {
    const credentials = resolver(300_000);
    await expect(credentials.resolveApiToken(KNOWN)).resolves.toMatchObject({ applicationId: 'tp_us_app', credentialId: 'tok_aaaa' });
    proxy.cut();
    clockMs += CREDENTIAL_CACHE_MS + 3_000;
    await expect(credentials.resolveApiToken(KNOWN)).resolves.toMatchObject({ applicationId: 'tp_us_app' });
    // Later calls answer at once from the cache instead of waiting for the owner's timeout again.
    const started = Date.now();
    await expect(credentials.resolveApiToken(KNOWN)).resolves.toMatchObject({ applicationId: 'tp_us_app' });
    expect(Date.now() - started).toBeLessThan(500);
    clockMs += 300_000;
    await expect(credentials.resolveApiToken(KNOWN)).rejects.toMatchObject({ kind: 'unavailable', code: 'service_unavailable' });
  }, 30_000);

  it('never answers for a credential it has not seen before while the owner is unreachable', async () => {
    const credentials = resolver(300_000);
    proxy.cut();
    await expect(credentials.resolveApiToken(OTHER_KNOWN)).rejects.toMatchObject({ kind: 'unavailable' });
  }, 30_000);

  it('serves nothing stale when the bound is 0', async () => {
    const credentials = resolver(0);
    await expect(credentials.resolveApiToken(KNOWN)).resolves.toBeDefined();
    proxy.cut();
    clockMs += CREDENTIAL_CACHE_MS + 1;
    await expect(credentials.resolveApiToken(KNOWN)).rejects.toMatchObject({ kind: 'unavailable' });
  }, 30_000);

  it('asks the owner again once the bus is back, and an unknown answer is not cached', async () => {
    const credentials = resolver(300_000);
    await credentials.resolveApiToken(KNOWN);
    proxy.cut();
    clockMs += CREDENTIAL_CACHE_MS + 1;
    await credentials.resolveApiToken(KNOWN);
    proxy.restore();
    const before = asked;
    // The client reconnects within its 500 ms reconnect wait.
    await waitForOwner(credentials);
    expect(asked).toBeGreaterThan(before);
    await expect(credentials.resolveApiToken('c'.repeat(64))).resolves.toBeUndefined();
  }, 30_000);

  async function waitForOwner(credentials: RpcCredentialResolver): Promise<void> {
    const deadline = Date.now() + 10_000;
    const before = asked;
    while (asked === before && Date.now() < deadline) {
      clockMs += CREDENTIAL_CACHE_MS + 1;
      await credentials.resolveApiToken(KNOWN);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
});
