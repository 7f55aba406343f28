import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createTestDatabase, deleteTestStreams, testEnv, uniqueBusPrefix, type TestDatabase } from '@svc/testing';

const ROOT = join(__dirname, '..', '..', '..');

/**
 * Libraries a region needs only for work that may never come (exporting traces, an agent on the
 * MCP gateway, a passkey, a mail, a web push, an SD-JWT VC, a device link's QR code) load on first
 * use: together they were about a quarter of the modules every process loaded at start, which
 * every restart after a crash paid for. A region booted as in production has loaded none of them.
 */
describe('the libraries a region loads on first use', () => {
  const prefix = uniqueBusPrefix();
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase('lazy_libraries');
  });
  afterAll(async () => {
    await database?.drop();
    await deleteTestStreams(prefix);
  });

  it('are not loaded by a region that has booted and served nothing yet', async () => {
    const env = testEnv({ REGION: 'us', DATABASE_URL: database.url, BUS_PREFIX: prefix, SERVICE_NAME: 'lazy-libraries' });
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [join(ROOT, 'scripts', 'run-compiled.js'), join(__dirname, 'fixtures', 'boot-and-list-packages.ts')],
      { cwd: ROOT, env: { ...process.env, ...env }, timeout: 90_000 },
    );
    const loaded = JSON.parse(stdout.trim().split('\n').pop() ?? '[]') as string[];
    // The process really booted: the libraries every request needs are there.
    expect(loaded).toEqual(expect.arrayContaining(['fastify', 'pg', 'nats', 'jose']));
    const lazy = [
      '@opentelemetry/sdk-node',
      '@opentelemetry/exporter-trace-otlp-http',
      '@opentelemetry/instrumentation-http',
      '@modelcontextprotocol/sdk',
      'zod',
      '@simplewebauthn/server',
      'nodemailer',
      'web-push',
      '@sd-jwt/sd-jwt-vc',
      'qrcode',
    ];
    expect(loaded.filter((name) => lazy.includes(name))).toEqual([]);
  }, 120_000);
});
