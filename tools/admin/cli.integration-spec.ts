import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { createTestDatabase, testKeyEncryptionKey, type TestDatabase } from '@svc/testing';

const ROOT = join(__dirname, '..', '..');
// The first run compiles the tools into the cache; later runs start in well under a second.
jest.setTimeout(120_000);

function admin(args: readonly string[], env: Record<string, string> = {}): { code: number | null; stdout: string; stderr: string } {
  const run = spawnSync(process.execPath, ['scripts/run-compiled.js', 'tools/admin/cli.ts', ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, ...env },
    timeout: 100_000,
  });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** Issue 19 item 7: the admin CLI prints usage on --help, JSON on stdout, messages on stderr. */
describe('admin CLI', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase('admin_cli');
  });
  afterAll(() => database?.drop());

  it.each([['--help'], ['-h'], ['help'], ['create-application', '--help']])('%s prints the usage on stdout and exits 0', (...args) => {
    const run = admin(args);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toContain('admin create-application --region <us|eu|ap>');
  });

  it.each([
    [[], 'missing command'],
    [['frobnicate'], 'unknown command "frobnicate"'],
    [['create-application', '--region', 'us', '--colour', 'blue'], 'unknown flag --colour'],
    [['rotate-keys', '--region'], '--region needs a value'],
    [['create-application', '--region', 'mars', '--name', 'x', '--environment', 'development'], '--region must be us, eu or ap'],
  ])('%j exits 2 with the usage on stderr and nothing on stdout', (args, message) => {
    const run = admin(args);
    expect(run).toMatchObject({ code: 2, stdout: '' });
    expect(run.stderr).toContain(message);
    expect(run.stderr).toContain('usage:');
  });

  it('create-application prints exactly one JSON object on stdout and nothing on stderr', () => {
    const run = admin(['create-application', '--region', 'us', '--name', 'cli test', '--environment', 'development'], {
      DATABASE_URL_TEMPLATE: database.url,
    });
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout.trim().split('\n')).toHaveLength(1);
    expect(JSON.parse(run.stdout)).toEqual({
      application_id: expect.stringMatching(/^tp_us_/),
      api_token: expect.any(String),
      publishable_key: expect.stringMatching(/^pk_test_/),
    });
  });

  it('a failed command exits 1 with the reason on stderr and nothing on stdout', () => {
    const run = admin(['create-application', '--region', 'us', '--environment', 'development'], { DATABASE_URL_TEMPLATE: database.url });
    expect(run).toMatchObject({ code: 1, stdout: '' });
    expect(run.stderr).toContain('validation_failed');
  });

  it('create-oauth-client registers a client under the application and prints its secret once', () => {
    const created = JSON.parse(
      admin(['create-application', '--region', 'us', '--name', 'oauth cli', '--environment', 'development'], {
        DATABASE_URL_TEMPLATE: database.url,
      }).stdout,
    ) as { application_id: string };
    const env = { DATABASE_URL_TEMPLATE: database.url, KEY_ENCRYPTION_KEY: testKeyEncryptionKey() };
    const run = admin(
      [
        'create-oauth-client',
        '--region',
        'us',
        '--application',
        created.application_id,
        '--name',
        'CLI RP',
        '--redirect-uris',
        'http://127.0.0.1:5555/cb',
      ],
      env,
    );
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(run.stdout)).toEqual({
      client_id: expect.stringMatching(/^oac_us_[a-z2-7]{20}$/),
      application_id: created.application_id,
      redirect_uris: ['http://127.0.0.1:5555/cb'],
      token_endpoint_auth_method: 'client_secret_basic',
      grant_types: ['authorization_code', 'refresh_token'],
      scopes: ['openid', 'profile', 'email', 'offline_access'],
      client_secret: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
    });
    const refused = admin(
      [
        'create-oauth-client',
        '--region',
        'us',
        '--application',
        created.application_id,
        '--name',
        'x',
        '--redirect-uris',
        'http://example.com/cb',
      ],
      env,
    );
    expect(refused).toMatchObject({ code: 1, stdout: '' });
    expect(refused.stderr).toContain('oauth_client_invalid: redirect_uris[0]');
  });
});
