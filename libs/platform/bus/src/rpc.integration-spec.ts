import { Controller } from '@nestjs/common';
import { DomainError } from '@svc/errors';
import { TEST_NATS_URL, TcpProxy, uniqueBusPrefix } from '@svc/testing';
import { BusConnection } from './bus-connection';
import { RpcHandler, rpcClientOf, serveRpc, type RpcReplyInit, type RpcRequest, type RpcService } from './nest-rpc';

const APPLICATION = {
  found: true,
  name: 'n',
  environment: 'development',
  mode: 'conductor',
  capabilitiesPublished: false,
  allowedOrigins: [],
};

@Controller()
class ApplicationHandlers {
  @RpcHandler('gateway.get_application')
  async getApplication(request: RpcRequest<'gateway.get_application'>): Promise<RpcReplyInit<'gateway.get_application'>> {
    if (request.applicationId === 'refused') throw new DomainError('forbidden', 'not_yours', 'not yours', { application_id: 'refused' });
    if (request.applicationId === 'crash') throw new Error('database exploded');
    // What node-postgres throws when the pool finds no connection in time (the database is away or saturated).
    if (request.applicationId === 'no-database') throw new Error('timeout exceeded when trying to connect');
    return { ...APPLICATION, applicationId: request.applicationId };
  }
}

@Controller()
class FlowHandlers {
  @RpcHandler('consent_records.get_flow')
  async getFlow(): Promise<RpcReplyInit<'consent_records.get_flow'>> {
    return {};
  }
}

/**
 * Issue 14 item 8: a method whose owner runs in the same process keeps answering while the bus
 * is down, with the same replies and errors as over NATS; other processes still reach it over NATS.
 */
describe('request/reply, local first (real NATS behind a proxy the test cuts)', () => {
  const prefix = uniqueBusPrefix();
  let proxy: TcpProxy;
  let bus: BusConnection;
  let remote: BusConnection;
  let service: RpcService;

  beforeAll(async () => {
    proxy = await TcpProxy.start(TEST_NATS_URL);
    bus = await BusConnection.connect({ url: proxy.url('nats'), prefix, region: 'us', name: 'rpc-local-test' });
    remote = await BusConnection.connect({ url: TEST_NATS_URL, prefix, region: 'us', name: 'rpc-remote-test' });
    service = await serveRpc(bus, [ApplicationHandlers]);
    await bus.nc.flush();
  });

  afterAll(async () => {
    await service?.close();
    proxy?.restore();
    await bus?.close();
    await remote?.close();
    await proxy?.close();
  });

  it('is answered over NATS for another process', async () => {
    await expect(rpcClientOf(remote).call('gateway.get_application', { applicationId: 'tp_us_remote' })).resolves.toMatchObject({
      found: true,
      applicationId: 'tp_us_remote',
    });
  });

  it("answers service_unavailable, not internal_error, when the owner's database is away, in process and over NATS", async () => {
    const unavailable = { kind: 'unavailable', code: 'service_unavailable' };
    await expect(service.client.call('gateway.get_application', { applicationId: 'no-database' })).rejects.toMatchObject(unavailable);
    await expect(rpcClientOf(remote).call('gateway.get_application', { applicationId: 'no-database' })).rejects.toMatchObject(unavailable);
  });

  describe('while the bus is cut', () => {
    beforeAll(() => proxy.cut());
    afterAll(() => proxy.restore());

    it('answers an in-process caller directly, with a reply decoded as from the wire', async () => {
      const reply = await service.client.call('gateway.get_application', { applicationId: 'tp_us_local' });
      expect(reply).toMatchObject({ found: true, applicationId: 'tp_us_local', allowedOrigins: [] });
      expect(reply.$typeName).toBe('svc.rpc.v1.GetApplicationReply');
    });

    it('rethrows a domain error as the same error, and anything else as internal_error, as a remote caller sees them', async () => {
      const client = service.client;
      await expect(client.call('gateway.get_application', { applicationId: 'refused' })).rejects.toMatchObject({
        kind: 'forbidden',
        code: 'not_yours',
        detail: { application_id: 'refused' },
      });
      await expect(client.call('gateway.get_application', { applicationId: 'crash' })).rejects.toMatchObject({
        kind: 'internal',
        code: 'internal_error',
        message: 'Internal error',
      });
    });

    it('still fails with service_unavailable for a caller without the handler in its process', async () => {
      await expect(rpcClientOf(bus).call('gateway.get_application', { applicationId: 'x' }, 300)).rejects.toMatchObject({
        kind: 'unavailable',
        code: 'service_unavailable',
      });
    });
  });

  it('forgets local handlers when the server closes', async () => {
    const closing = await serveRpc(bus, [FlowHandlers]);
    expect(closing.server.localHandler('consent_records.get_flow')).toBeDefined();
    await closing.close();
    expect(closing.server.localHandler('consent_records.get_flow')).toBeUndefined();
  });
});
