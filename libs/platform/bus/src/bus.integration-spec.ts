import { Controller } from '@nestjs/common';
import { DomainError } from '@svc/errors';
import { eventSubject, regionStreamName } from '@svc/contracts';
import { TEST_NATS_URL, deleteTestStreams, uniqueBusPrefix } from '@svc/testing';
import { BusConnection } from './bus-connection';
import { EventPublisher } from './event-publisher';
import { RpcHandler, rpcClientOf, serveRpc, type RpcReplyInit, type RpcRequest } from './nest-rpc';
import { ensureImportedStream, ensureRegionStream } from './streams';

@Controller()
class ApplicationHandlers {
  @RpcHandler('gateway.get_application')
  async getApplication(request: RpcRequest<'gateway.get_application'>): Promise<RpcReplyInit<'gateway.get_application'>> {
    if (request.applicationId === 'boom') throw new DomainError('forbidden', 'not_yours', 'not yours', { application_id: 'boom' });
    if (request.applicationId === 'absent') return { found: false };
    return {
      found: true,
      applicationId: request.applicationId,
      name: 'n',
      environment: 'development',
      mode: 'conductor',
      capabilitiesPublished: false,
      allowedOrigins: [],
    };
  }
}

@Controller()
class EuApplicationHandlers {
  @RpcHandler('gateway.get_application')
  async getApplication(request: RpcRequest<'gateway.get_application'>): Promise<RpcReplyInit<'gateway.get_application'>> {
    return { found: true, applicationId: request.applicationId, name: 'eu' };
  }
}

describe('bus: region streams, publish dedupe, request/reply (real NATS)', () => {
  const prefix = uniqueBusPrefix();
  let bus: BusConnection;
  let other: BusConnection;

  beforeAll(async () => {
    bus = await BusConnection.connect({ url: TEST_NATS_URL, prefix, region: 'us', name: 'bus-test' });
    other = await BusConnection.connect({ url: TEST_NATS_URL, prefix, region: 'eu', name: 'bus-test-eu' });
  });
  afterAll(async () => {
    await bus?.close();
    await other?.close();
    await deleteTestStreams(prefix);
  });

  it('creates one stream per region, idempotently, with subjects prefixed by region', async () => {
    const first = await ensureRegionStream(bus.jsm, prefix, 'us');
    const again = await ensureRegionStream(bus.jsm, prefix, 'us');
    const eu = await ensureRegionStream(other.jsm, prefix, 'eu');
    expect(first.config.name).toBe(again.config.name);
    expect(first.config.subjects).toEqual([`${prefix}.us.evt.>`]);
    expect(eu.config.subjects).toEqual([`${prefix}.eu.evt.>`]);
    expect(first.config.duplicate_window).toBe(120_000_000_000);
  });

  it("keeps another region's imported subjects in a stream named as that region's, which the owner region widens to its whole subject space", async () => {
    const directory = eventSubject(prefix, 'ap', 'directory.subject_status');
    await ensureImportedStream(other.jsm, prefix, 'ap', [directory]);
    expect((await other.jsm.streams.info(regionStreamName(prefix, 'ap'))).config.subjects).toEqual([directory]);
    // Made again: left as it is.
    await ensureImportedStream(other.jsm, prefix, 'ap', [directory]);
    // In one shared account, the ap region's own boot finds the copy and widens it.
    const own = await ensureRegionStream(bus.jsm, prefix, 'ap');
    expect(own.config.subjects).toEqual([`${prefix}.ap.evt.>`]);
    // And a copy asked for after the region's own stream exists changes nothing.
    await ensureImportedStream(other.jsm, prefix, 'ap', [directory]);
    expect((await other.jsm.streams.info(regionStreamName(prefix, 'ap'))).config.subjects).toEqual([`${prefix}.ap.evt.>`]);
  });

  it('drops a republished message id inside the duplicate window', async () => {
    const publisher = new EventPublisher(bus);
    const event = { id: 'dup-1', eventType: 'test.dup', subject: `${prefix}.us.evt.test.dup`, data: new Uint8Array([1]) };
    const first = await publisher.publish(event);
    const second = await publisher.publish(event);
    expect(first.duplicate).toBe(false);
    expect(second.duplicate).toBe(true);
    expect(second.seq).toBe(first.seq);
  });

  it('answers request/reply calls and carries a domain error back as the same error', async () => {
    const service = await serveRpc(bus, [ApplicationHandlers]);
    try {
      // Another client of the same bus, without the server: the call crosses NATS.
      const client = rpcClientOf(bus);
      const reply = await client.call('gateway.get_application', { applicationId: 'tp_us_x' });
      expect(reply).toMatchObject({ found: true, applicationId: 'tp_us_x' });
      // A reply whose fields all hold their defaults is zero bytes on the wire: still an answer.
      await expect(client.call('gateway.get_application', { applicationId: 'absent' })).resolves.toMatchObject({ found: false });
      await expect(client.call('gateway.get_application', { applicationId: 'boom' })).rejects.toMatchObject({
        kind: 'forbidden',
        code: 'not_yours',
        detail: { application_id: 'boom' },
      });
    } finally {
      await service.close();
    }
  });

  it('keeps regions apart: a call in eu is not answered by a us server', async () => {
    const service = await serveRpc(bus, [ApplicationHandlers]);
    try {
      await expect(rpcClientOf(other).call('gateway.get_application', { applicationId: 'x' }, 300)).rejects.toMatchObject({
        code: 'service_unavailable',
        kind: 'unavailable',
      });
    } finally {
      await service.close();
    }
  });

  it("asks another region's server over NATS, never this process's handler of the same method", async () => {
    const usService = await serveRpc(bus, [ApplicationHandlers]);
    const euService = await serveRpc(other, [EuApplicationHandlers]);
    try {
      await expect(euService.client.inRegion('us').call('gateway.get_application', { applicationId: 'tp_us_y' })).resolves.toMatchObject({
        found: true,
        name: 'n',
      });
      await expect(euService.client.call('gateway.get_application', { applicationId: 'tp_eu_y' })).resolves.toMatchObject({
        found: true,
        name: 'eu',
      });
      await euService.close();
      await expect(usService.client.inRegion('eu').call('gateway.get_application', { applicationId: 'x' }, 300)).rejects.toMatchObject({
        code: 'service_unavailable',
      });
    } finally {
      await usService.close();
      await euService.close();
    }
  });
});
