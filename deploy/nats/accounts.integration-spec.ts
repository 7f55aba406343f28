/**
 * The region accounts of deploy/nats/accounts.conf on a nats-server of this test's own (free port,
 * own JetStream directory): anonymous clients are refused, a region's credentials read nothing of
 * another region, and the cross-region request/reply the code relies on still answers.
 */
import { Controller } from '@nestjs/common';
import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import {
  BusConnection,
  EventConsumer,
  EventPublisher,
  RpcHandler,
  busCredentialsFrom,
  ensureImportedStream,
  ensureRegionStream,
  serveEvents,
  serveRpc,
  type DeliveredEvent,
  type RpcReplyInit,
  type RpcRequest,
} from '@svc/bus';
import { REGIONS, type Region } from '@svc/config';
import {
  ConsumeGrantReplySchema,
  ConsumeGrantRequestSchema,
  GetAuditChainInfoReplySchema,
  GetAuditChainInfoRequestSchema,
  GrantStatusReplySchema,
  GrantStatusRequestSchema,
  ResolveCredentialRequestSchema,
  eventSubject,
  regionStreamName,
  rpcSubject,
} from '@svc/contracts';
import { waitFor } from '@svc/testing';
import { connect, type Subscription } from 'nats';
import { ACCOUNTS_CONFIG, randomPassword } from '../local/local-servers';
import { startNatsServer, type NatsServerProcess } from './nats-server-process';

const PREFIX = 'svc';

@Controller()
class EuHandlers {
  @RpcHandler('oap.grant_status')
  async grantStatus(request: RpcRequest<'oap.grant_status'>): Promise<RpcReplyInit<'oap.grant_status'>> {
    return { found: true, status: 'revoked', revokedAt: `for ${request.grantId}` };
  }
}

let credentialRequests = 0;

@Controller()
class CredentialHandlers {
  @RpcHandler('gateway.resolve_credential')
  async resolve(): Promise<RpcReplyInit<'gateway.resolve_credential'>> {
    credentialRequests += 1;
    return {};
  }
}

@Controller()
class ApHandlers {
  @RpcHandler('oap.consume_grant')
  async consumeGrant(): Promise<RpcReplyInit<'oap.consume_grant'>> {
    return { found: true, consumed: true };
  }

  @RpcHandler('audit.get_chain_info')
  async chainInfo(): Promise<RpcReplyInit<'audit.get_chain_info'>> {
    return { genesisHash: 'ab'.repeat(32) };
  }
}

/** How a subscription ends: a message, or the server's refusal. */
async function firstOutcome(subscription: Subscription, timeoutMs: number): Promise<string> {
  const timer = setTimeout(() => subscription.unsubscribe(), timeoutMs);
  try {
    for await (const message of subscription) return `received ${message.subject}`;
    return 'nothing';
  } catch (error) {
    return String((error as { code?: string }).code);
  } finally {
    clearTimeout(timer);
  }
}

describe('NATS region accounts (deploy/nats/accounts.conf)', () => {
  let server: NatsServerProcess;
  const passwords = Object.fromEntries(REGIONS.map((region) => [region, randomPassword()])) as Record<Region, string>;
  const buses = {} as Record<Region, BusConnection>;

  beforeAll(async () => {
    server = await startNatsServer(
      ACCOUNTS_CONFIG,
      Object.fromEntries(REGIONS.map((region) => [`NATS_${region.toUpperCase()}_PASSWORD`, passwords[region]])),
    );
    for (const region of REGIONS) {
      buses[region] = await BusConnection.connect({
        url: server.url,
        prefix: PREFIX,
        region,
        name: `accounts-test-${region}`,
        credentials: busCredentialsFrom({ NATS_USER: `svc-${region}`, NATS_PASSWORD: passwords[region] }),
      });
      await ensureRegionStream(buses[region].jsm, PREFIX, region);
    }
  });

  afterAll(async () => {
    for (const bus of Object.values(buses)) await bus.close();
    await server?.stop();
  });

  it('refuses anonymous clients and wrong passwords, so nobody unauthenticated can subscribe to svc.us.evt.>', async () => {
    await expect(connect({ servers: server.url, reconnect: false })).rejects.toMatchObject({ code: 'AUTHORIZATION_VIOLATION' });
    await expect(connect({ servers: server.url, reconnect: false, user: 'svc-us', pass: passwords.eu })).rejects.toMatchObject({
      code: 'AUTHORIZATION_VIOLATION',
    });
  });

  it("gives region us nothing of region eu's events: no subscription, no stream, no publishing into it", async () => {
    await new EventPublisher(buses.eu).publish({
      id: 'eu-evt-1',
      eventType: 'consent.recorded',
      subject: `${PREFIX}.eu.evt.consent.recorded`,
      data: Buffer.from('ada@example.com'),
    });
    expect((await buses.eu.jsm.streams.info(regionStreamName(PREFIX, 'eu'))).state.messages).toBe(1);

    expect(await firstOutcome(buses.us.nc.subscribe(`${PREFIX}.eu.evt.>`), 2_000)).toBe('PERMISSIONS_VIOLATION');
    expect(await firstOutcome(buses.us.nc.subscribe('>'), 2_000)).toBe('PERMISSIONS_VIOLATION');
    // The eu stream does not exist in the us account's JetStream.
    await expect(buses.us.jsm.streams.info(regionStreamName(PREFIX, 'eu'))).rejects.toThrow(/stream not found/);
    await expect(buses.us.js.publish(`${PREFIX}.eu.evt.consent.recorded`, Buffer.from('forged'))).rejects.toThrow();
    expect((await buses.eu.jsm.streams.info(regionStreamName(PREFIX, 'eu'))).state.messages).toBe(1);
  });

  it('lets a region publish and consume its own events with durable consumers under its credentials', async () => {
    const seen: string[] = [];
    @Controller()
    class AccountsTestConsumer {
      @EventConsumer({ durable: 'accounts-test', types: 'consent.>' })
      async handle(event: DeliveredEvent): Promise<void> {
        seen.push(event.id);
      }
    }
    const consumer = await serveEvents(buses.us, [AccountsTestConsumer]);
    try {
      await new EventPublisher(buses.us).publish({
        id: 'us-evt-1',
        eventType: 'consent.recorded',
        subject: `${PREFIX}.us.evt.consent.recorded`,
        data: Buffer.from('x'),
      });
      await waitFor(() => seen.includes('us-evt-1'));
      // The ack follows the handler: wait for the server to have it, under the same credentials.
      await waitFor(async () => (await buses.us.jsm.consumers.info(regionStreamName(PREFIX, 'us'), 'accounts-test')).num_ack_pending === 0);
    } finally {
      await consumer.close();
    }
  });

  it('answers the cross-region requests the code makes: grant status, grant consumption, chain info', async () => {
    const eu = await serveRpc(buses.eu, [EuHandlers]);
    const ap = await serveRpc(buses.ap, [ApHandlers]);
    try {
      await buses.eu.nc.flush();
      await buses.ap.nc.flush();
      const status = await buses.us.nc.request(
        rpcSubject(PREFIX, 'eu', 'oap.grant_status'),
        toBinary(GrantStatusRequestSchema, create(GrantStatusRequestSchema, { grantId: 'gnt_eu_1' })),
        { timeout: 2_000 },
      );
      expect(fromBinary(GrantStatusReplySchema, status.data)).toMatchObject({ found: true, status: 'revoked', revokedAt: 'for gnt_eu_1' });
      const consumed = await buses.eu.nc.request(
        rpcSubject(PREFIX, 'ap', 'oap.consume_grant'),
        toBinary(ConsumeGrantRequestSchema, create(ConsumeGrantRequestSchema, { grantId: 'gnt_ap_1' })),
        { timeout: 2_000 },
      );
      expect(fromBinary(ConsumeGrantReplySchema, consumed.data)).toMatchObject({ found: true, consumed: true });
      const chain = await buses.us.nc.request(
        rpcSubject(PREFIX, 'ap', 'audit.get_chain_info'),
        toBinary(GetAuditChainInfoRequestSchema, create(GetAuditChainInfoRequestSchema, {})),
        { timeout: 2_000 },
      );
      expect(fromBinary(GetAuditChainInfoReplySchema, chain.data).genesisHash).toBe('ab'.repeat(32));
    } finally {
      await eu.close();
      await ap.close();
    }
  });

  it("refuses a region's request to another region's internal methods", async () => {
    const eu = await serveRpc(buses.eu, [CredentialHandlers]);
    credentialRequests = 0;
    try {
      await buses.eu.nc.flush();
      const request = toBinary(ResolveCredentialRequestSchema, create(ResolveCredentialRequestSchema, {}));
      await expect(
        buses.us.nc.request(rpcSubject(PREFIX, 'eu', 'gateway.resolve_credential'), request, { timeout: 1_000 }),
      ).rejects.toThrow();
      expect(credentialRequests).toBe(0);
      // Within eu the same method answers.
      await expect(
        buses.eu.nc.request(rpcSubject(PREFIX, 'eu', 'gateway.resolve_credential'), request, { timeout: 2_000 }),
      ).resolves.toBeDefined();
      expect(credentialRequests).toBe(1);
    } finally {
      await eu.close();
    }
  });

  it("carries us' cross-border directory subject into eu's account, where a durable reads it, and no other us event", async () => {
    const directory = eventSubject(PREFIX, 'us', 'directory.subject_status');
    // What consent-records does at boot in eu (DirectoryReplica.onModuleInit), under eu's credentials.
    await ensureImportedStream(buses.eu.jsm, PREFIX, 'us', [directory]);
    const seen: string[] = [];
    @Controller()
    class EuDirectoryReplica {
      @EventConsumer({ durable: 'accounts-test-directory-eu-from-us', types: 'directory.subject_status', region: 'us' })
      async handle(event: DeliveredEvent): Promise<void> {
        seen.push(event.id);
      }
    }
    const replica = await serveEvents(buses.eu, [EuDirectoryReplica]);
    try {
      const publisher = new EventPublisher(buses.us);
      await publisher.publish({ id: 'us-dir-1', eventType: 'directory.subject_status', subject: directory, data: Buffer.from('status') });
      await publisher.publish({
        id: 'us-evt-2',
        eventType: 'consent.recorded',
        subject: `${PREFIX}.us.evt.consent.recorded`,
        data: Buffer.from('ada@example.com'),
      });
      await waitFor(() => seen.includes('us-dir-1'));
      const copy = await buses.eu.jsm.streams.info(regionStreamName(PREFIX, 'us'));
      expect(copy.config.subjects).toEqual([directory]);
      expect(copy.state.messages).toBe(1);
      expect(seen).toEqual(['us-dir-1']);
      // eu still cannot subscribe to us' subjects, nor publish a directory status in us' name into us.
      expect(await firstOutcome(buses.eu.nc.subscribe(directory), 2_000)).toBe('PERMISSIONS_VIOLATION');
      // Made again (another boot): left as it is.
      await ensureImportedStream(buses.eu.jsm, PREFIX, 'us', [directory]);
      expect((await buses.eu.jsm.streams.info(regionStreamName(PREFIX, 'us'))).state.messages).toBe(1);
    } finally {
      await replica.close();
    }
  });
});
