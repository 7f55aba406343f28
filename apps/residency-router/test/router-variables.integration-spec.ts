import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { freePort, http, waitFor } from '@svc/testing';

const ROOT = join(__dirname, '..', '..', '..');

/**
 * The residency router stores nothing and uses no bus: its process boots from the variables it
 * reads (region, port, the services behind it) alone — no DATABASE_URL, no KEY_ENCRYPTION_KEY,
 * no NATS variable — and routes.
 */
describe('residency-router process: only the variables it uses', () => {
  let upstream: Server;
  let router: ChildProcess;
  let stderr = '';
  let base: string;
  const proxied: string[] = [];

  beforeAll(async () => {
    const upstreamPort = await freePort();
    upstream = createServer((request, response) => {
      proxied.push(`${request.method} ${request.url}`);
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ served_by: 'decision-gateway' }));
    });
    await new Promise<void>((resolve) => upstream.listen(upstreamPort, '127.0.0.1', resolve));
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    // The whole environment of the process: nothing inherited.
    const env = {
      REGION: 'us',
      HTTP_PORT: String(port),
      SERVICE_URLS: `decision-gateway=http://127.0.0.1:${upstreamPort}`,
      LOG_LEVEL: 'silent',
    };
    router = spawn(process.execPath, [join(ROOT, 'scripts', 'run-ts.js'), join(ROOT, 'apps', 'residency-router', 'src', 'main.ts')], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    router.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    await waitFor(async () => {
      if (router.exitCode !== null) throw new Error(`router exited ${router.exitCode}: ${stderr}`);
      return (await http('GET', `${base}/healthz`).catch(() => undefined))?.status === 200 || undefined;
    }, 60_000);
  });

  afterAll(async () => {
    if (router && router.exitCode === null) {
      const exited = new Promise((resolve) => router.once('exit', resolve));
      router.kill('SIGTERM');
      await exited;
    }
    await new Promise((resolve) => upstream?.close(resolve));
  });

  it('is ready without a database or a bus to check', async () => {
    const ready = await http('GET', `${base}/readyz`);
    expect(ready.status).toBe(200);
    expect(ready.body).toMatchObject({ status: 'ok' });
  });

  it('answers 421 naming the home region for a foreign identifier', async () => {
    const res = await http('GET', `${base}/api/v1/applications/tp_eu_abcdefghijklmnopqrst`);
    expect(res.status).toBe(421);
    expect(res.body).toMatchObject({ reason_code: 'wrong_region', detail: { home_region: 'eu' } });
  });

  it('proxies a local request to the service that owns the path', async () => {
    const res = await http('GET', `${base}/api/v1/applications/tp_us_abcdefghijklmnopqrst`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ served_by: 'decision-gateway' });
    expect(proxied).toContain('GET /api/v1/applications/tp_us_abcdefghijklmnopqrst');
  });

  it('still refuses a bad variable of its own by name, before serving', async () => {
    const child = spawn(process.execPath, [join(ROOT, 'scripts', 'run-ts.js'), join(ROOT, 'apps', 'residency-router', 'src', 'main.ts')], {
      cwd: ROOT,
      env: { REGION: 'us', HTTP_PORT: '0', SERVICE_URLS: 'not pairs' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let output = '';
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).toBe(1);
    expect(output).toContain('SERVICE_URLS');
    expect(output).not.toMatch(/DATABASE_URL|KEY_ENCRYPTION_KEY/);
  });
});
