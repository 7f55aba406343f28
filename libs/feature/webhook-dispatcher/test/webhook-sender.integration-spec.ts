import type { ResolveAll } from '@svc/egress';
import { WebhookSender } from '../src/deliveries/webhook-sender';
import { LoopbackReceiver } from '@svc/testing';

/**
 * The sender's connection guard against a real loopback receiver, with host names answered by a
 * stand-in resolver (names that exist nowhere else), so what is asserted is where the socket went.
 */
describe('webhook sender target guard', () => {
  const receiver = new LoopbackReceiver();
  let answers: Record<string, string[]> = {};
  let lookups = 0;
  const resolveAll: ResolveAll = (hostname, _options, callback) => {
    lookups += 1;
    const found = answers[hostname] ?? [];
    if (found.length === 0) callback(Object.assign(new Error('not found'), { code: 'ENOTFOUND' }), []);
    else
      callback(
        null,
        found.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })),
      );
  };
  const sender = new WebhookSender({ connectTimeoutMs: 2_000, readTimeoutMs: 2_000, resolveAll });
  const post = (url: string, environment: 'development' | 'production') =>
    sender.post(url, { 'content-type': 'application/json' }, '{}', environment);

  beforeAll(async () => {
    await receiver.start();
  });

  afterAll(async () => {
    await sender.close();
    await receiver.close();
  });

  beforeEach(() => {
    answers = {};
    lookups = 0;
  });

  it('connects to the address the guarded lookup checked (a name no real resolver knows), resolving it once', async () => {
    const port = new URL(receiver.url()).port;
    answers = { 'receiver.test': ['127.0.0.1'] };
    expect(await post(`http://receiver.test:${port}/checked`, 'development')).toEqual({ statusCode: 200 });
    expect(receiver.on('/checked')).toHaveLength(1);
    expect(lookups).toBe(1);
  });

  it('refuses a name resolving to loopback for production, before any byte is sent', async () => {
    const port = new URL(receiver.url()).port;
    answers = { 'rebound.test': ['127.0.0.1'] };
    expect(await post(`http://rebound.test:${port}/rebound`, 'production')).toEqual({ error: 'target_address_refused:loopback' });
    expect(receiver.on('/rebound')).toHaveLength(0);
  });

  it('refuses a name when any one of its addresses is refused, even for development', async () => {
    const port = new URL(receiver.url()).port;
    answers = { 'mixed.test': ['127.0.0.1', '10.0.0.9'] };
    expect(await post(`http://mixed.test:${port}/mixed`, 'development')).toEqual({ error: 'target_address_refused:private' });
    answers = { 'metadata.test': ['169.254.169.254'] };
    expect(await post(`http://metadata.test:${port}/mixed`, 'development')).toEqual({ error: 'target_address_refused:metadata' });
    expect(receiver.on('/mixed')).toHaveLength(0);
  });

  it('judges literal addresses without a lookup: loopback for development only, IPv4-mapped loopback refused for production', async () => {
    const port = new URL(receiver.url()).port;
    expect(await post(`http://127.0.0.1:${port}/literal`, 'development')).toEqual({ statusCode: 200 });
    expect(await post(`http://127.0.0.1:${port}/literal`, 'production')).toEqual({ error: 'target_address_refused:loopback' });
    expect(await post(`http://[::ffff:127.0.0.1]:${port}/literal`, 'production')).toEqual({ error: 'target_address_refused:loopback' });
    expect(await post(`https://[fd00::1]:${port}/literal`, 'production')).toEqual({ error: 'target_address_refused:unique_local' });
    expect(receiver.on('/literal')).toHaveLength(1);
    expect(lookups).toBe(0);
  });
});
