import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { EgressClient } from './egress-client';
import type { ResolveAll } from './target-check';

/**
 * The egress client against a real loopback server: the guarded agent per environment, the bounded
 * response read, and the short error texts callers log.
 */
describe('egress client', () => {
  let server: Server;
  let base: string;
  const seen: string[] = [];
  const answers: Record<string, string[]> = { 'tool.test': ['127.0.0.1'], 'internal.test': ['10.0.0.8'] };
  const resolveAll: ResolveAll = (hostname, _options, callback) => {
    const found = answers[hostname] ?? [];
    if (found.length === 0) callback(Object.assign(new Error('not found'), { code: 'ENOTFOUND' }), []);
    else
      callback(
        null,
        found.map((address) => ({ address, family: 4 })),
      );
  };
  const textClient = new EgressClient({
    maxResponseBytes: 1024,
    responseBody: 'text',
    connectTimeoutMs: 1_000,
    readTimeoutMs: 300,
    resolveAll,
  });
  const discardClient = new EgressClient({
    maxResponseBytes: 1024,
    responseBody: 'discard',
    connectTimeoutMs: 1_000,
    readTimeoutMs: 300,
    resolveAll,
  });

  beforeAll(async () => {
    server = createServer((req, res) => {
      seen.push(req.url ?? '');
      if (req.url === '/slow') return void setTimeout(() => res.end('late'), 1_000);
      if (req.url === '/large') return void res.end('x'.repeat(10_000));
      res.setHeader('retry-after', '7');
      res.statusCode = 201;
      res.end(JSON.stringify({ ok: true }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await textClient.close();
    await discardClient.close();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('answers a development call to loopback with status, headers and body', async () => {
    const result = await textClient.send({
      method: 'POST',
      url: `${base}/ok`,
      headers: { 'content-type': 'application/json' },
      body: '{}',
      environment: 'development',
    });
    expect(result).toMatchObject({ statusCode: 201, body: '{"ok":true}' });
    expect('headers' in result && result.headers['retry-after']).toBe('7');
  });

  it('reaches a name through the guarded lookup, and discards the body for discarding clients', async () => {
    const port = new URL(base).port;
    expect(
      await discardClient.send({ method: 'GET', url: `http://tool.test:${port}/named`, headers: {}, environment: 'development' }),
    ).toMatchObject({ statusCode: 201, body: '' });
    expect(seen).toContain('/named');
  });

  it('refuses a production call to loopback, literal or by name, before any byte is sent', async () => {
    const port = new URL(base).port;
    expect(await textClient.send({ method: 'GET', url: `${base}/refused`, headers: {}, environment: 'production' })).toEqual({
      error: 'target_address_refused:loopback',
    });
    expect(
      await textClient.send({ method: 'GET', url: `http://tool.test:${port}/refused`, headers: {}, environment: 'production' }),
    ).toEqual({ error: 'target_address_refused:loopback' });
    expect(
      await textClient.send({ method: 'GET', url: `http://internal.test:${port}/refused`, headers: {}, environment: 'development' }),
    ).toEqual({ error: 'target_address_refused:private' });
    expect(
      await textClient.send({ method: 'GET', url: 'http://169.254.169.254/latest/meta-data', headers: {}, environment: 'development' }),
    ).toEqual({ error: 'target_address_refused:metadata' });
    expect(seen).not.toContain('/refused');
  });

  it('cuts a response body at the bound', async () => {
    const result = await textClient.send({ method: 'GET', url: `${base}/large`, headers: {}, environment: 'development' });
    expect('body' in result && result.body.length).toBeLessThanOrEqual(1024);
    expect(result).toMatchObject({ statusCode: 200 });
  });

  it('turns timeouts and network failures into short texts', async () => {
    expect(await textClient.send({ method: 'GET', url: `${base}/slow`, headers: {}, environment: 'development' })).toEqual({
      error: 'read_timeout',
    });
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    expect(await textClient.send({ method: 'GET', url: `http://127.0.0.1:${port}/`, headers: {}, environment: 'development' })).toEqual({
      error: 'connection_refused',
    });
    expect(await textClient.send({ method: 'GET', url: `http://nowhere.test:${port}/`, headers: {}, environment: 'development' })).toEqual({
      error: 'dns_not_found',
    });
  });
});
