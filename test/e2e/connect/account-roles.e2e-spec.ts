import { http } from '@svc/testing';
import type * as oidc from 'openid-client';
import { personWithAccessToken, startOAuthRegion, type OAuthRegion } from '../oauth/support';
import {
  CONSOLE_REDIRECT,
  bearer,
  consoleClient,
  consolePerson,
  createAccount,
  createApplication,
  type ApiApplication,
  type Json,
} from './support';

type Person = { id: string; token: string };

/**
 * Connect accounts: the role matrix of the decision-gateway README. An account token or a
 * member's access token (with the `accounts` scope) acts on the account's applications only as
 * far as its role goes: auditor reads; developer manages applications, API tokens, publishable
 * keys, OAuth clients and webhook subscriptions but not members; admin everything but deleting
 * the account and transferring ownership; owner all. Outsiders see nothing (404).
 */
describe('account roles', () => {
  let region: OAuthRegion;
  let console: oidc.Configuration;
  let url: string;
  let owner: Person;
  let admin: Person;
  let developer: Person;
  let auditor: Person;
  let stranger: Person;
  let accountId: string;
  let app: ApiApplication;

  const as = (who: Person | string) => bearer(typeof who === 'string' ? who : who.token);
  const call = (method: string, path: string, who: Person | string, json?: Json) =>
    http(method, `${url}${path}`, { headers: as(who), ...(json === undefined ? {} : { json }) });

  beforeAll(async () => {
    region = await startOAuthRegion('account_roles');
    url = region.url;
    console = await consoleClient(region);
    owner = await consolePerson(region, console, 'owner@example.test', 'Olive Owner');
    admin = await consolePerson(region, console, 'admin@example.test', 'Adam Admin');
    developer = await consolePerson(region, console, 'dev@example.test', 'Dana Developer');
    auditor = await consolePerson(region, console, 'audit@example.test', 'Aude Auditor');
    stranger = await consolePerson(region, console, 'stranger@example.test', 'Sam Stranger');
    accountId = await createAccount(url, owner.token, 'Roles Ltd');
    for (const [person, role] of [
      [admin, 'admin'],
      [developer, 'developer'],
      [auditor, 'auditor'],
    ] as const) {
      const added = await call('POST', `/api/v1/accounts/${accountId}/members`, owner, { person_id: person.id, role });
      expect(added.status).toBe(201);
    }
    const created = await createApplication(url, owner.token, { account_id: accountId, name: 'Roles app', environment: 'development' });
    expect(created.status).toBe(201);
    app = created.app!;
  });
  afterAll(async () => {
    await region?.close();
  });

  it('lists the members with their roles to any member', async () => {
    const members = await call('GET', `/api/v1/accounts/${accountId}/members`, auditor);
    expect(members.status).toBe(200);
    const roles = Object.fromEntries((members.body.data as Json[]).map((m) => [m.person_id, m.role]));
    expect(roles).toEqual({ [owner.id]: 'owner', [admin.id]: 'admin', [developer.id]: 'developer', [auditor.id]: 'auditor' });
    expect((await call('GET', `/api/v1/accounts/${accountId}/members`, stranger)).body.reason_code).toBe('account_not_found');
    expect((await call('GET', `/api/v1/accounts/${accountId}`, stranger)).status).toBe(404);
  });

  it('an auditor reads the application and its credentials but changes nothing', async () => {
    for (const path of ['', '/api_tokens', '/publishable_keys', '/allowed_origins', '/oauth_clients', '/webhook_subscriptions']) {
      expect([path, (await call('GET', `/api/v1/applications/${app.id}${path}`, auditor)).status]).toEqual([path, 200]);
    }
    const writes: Array<[string, string, Json | undefined]> = [
      ['PATCH', '', { name: 'Renamed' }],
      ['POST', '/api_tokens', { name: 'ci' }],
      ['POST', '/publishable_keys', undefined],
      ['POST', '/allowed_origins', { allowed_origin: { origin: 'http://localhost:4590' } }],
      ['POST', '/oauth_clients', { name: 'Audit client', redirect_uris: ['http://localhost:4590/cb'] }],
      ['POST', '/webhook_subscriptions', { url: 'http://127.0.0.1:9/hook', events: ['consent.granted'] }],
      ['POST', '/sandbox_reset', undefined],
    ];
    for (const [method, path, json] of writes) {
      const res = await call(method, `/api/v1/applications/${app.id}${path}`, auditor, json);
      expect([method, path, res.status, res.body.reason_code]).toEqual([method, path, 403, 'account_role_insufficient']);
      expect(res.body.detail).toMatchObject({ required_role: 'developer', role: 'auditor' });
    }
    const create = await createApplication(url, auditor.token, { account_id: accountId, name: 'Nope', environment: 'development' });
    expect([create.status, create.body.reason_code]).toEqual([403, 'account_role_insufficient']);
  });

  it('a developer manages applications, API tokens, publishable keys, OAuth clients and webhooks, not members', async () => {
    expect((await call('PATCH', `/api/v1/applications/${app.id}`, developer, { name: 'Roles app 2' })).body.name).toBe('Roles app 2');
    const token = await call('POST', `/api/v1/applications/${app.id}/api_tokens`, developer, { name: 'ci' });
    expect(token.status).toBe(201);
    const secret = (token.body.api_token as Json).token as string;
    expect(JSON.stringify((await call('GET', `/api/v1/applications/${app.id}/api_tokens`, developer)).body)).not.toContain(secret);
    const key = await call('POST', `/api/v1/applications/${app.id}/publishable_keys`, developer);
    expect([key.status, key.body.environment]).toEqual([201, 'development']);
    expect(key.body.key).toMatch(/^pk_test_/);
    const client = await call('POST', `/api/v1/applications/${app.id}/oauth_clients`, developer, {
      name: 'Dev client',
      redirect_uris: ['http://localhost:4590/cb'],
    });
    expect(client.status).toBe(201);
    const hook = await call('POST', `/api/v1/applications/${app.id}/webhook_subscriptions`, developer, {
      url: 'http://127.0.0.1:9/hook',
      events: ['consent.granted'],
    });
    expect(hook.status).toBe(201);
    const created = await createApplication(url, developer.token, { account_id: accountId, name: 'Dev app', environment: 'development' });
    expect(created.status).toBe(201);

    const add = await call('POST', `/api/v1/accounts/${accountId}/members`, developer, { person_id: stranger.id, role: 'auditor' });
    expect([add.status, add.body.reason_code]).toEqual([403, 'account_role_insufficient']);
    expect((await call('POST', `/api/v1/accounts/${accountId}/account_tokens`, developer, { name: 'x', role: 'auditor' })).status).toBe(
      403,
    );
    expect((await call('GET', `/api/v1/accounts/${accountId}/account_tokens`, developer)).status).toBe(403);
  });

  it('an admin manages members and account tokens, but neither deletes the account nor transfers ownership', async () => {
    const added = await call('POST', `/api/v1/accounts/${accountId}/members`, admin, { person_id: stranger.id, role: 'auditor' });
    expect(added.status).toBe(201);
    expect((await call('GET', `/api/v1/applications/${app.id}`, stranger)).status).toBe(200);
    expect((await call('PATCH', `/api/v1/accounts/${accountId}/members/${stranger.id}`, admin, { role: 'developer' })).body.role).toBe(
      'developer',
    );
    expect((await call('DELETE', `/api/v1/accounts/${accountId}/members/${stranger.id}`, admin)).status).toBe(204);
    expect((await call('GET', `/api/v1/applications/${app.id}`, stranger)).status).toBe(404);

    const grantOwner = await call('POST', `/api/v1/accounts/${accountId}/members`, admin, { person_id: stranger.id, role: 'owner' });
    expect(grantOwner.status).toBe(403);
    const transfer = await call('PATCH', `/api/v1/accounts/${accountId}/members/${admin.id}`, admin, { role: 'owner' });
    expect([transfer.status, transfer.body.reason_code]).toEqual([403, 'account_role_insufficient']);
    const demote = await call('PATCH', `/api/v1/accounts/${accountId}/members/${owner.id}`, admin, { role: 'developer' });
    expect([demote.status, demote.body.reason_code]).toEqual([409, 'account_owner_protected']);
    expect((await call('DELETE', `/api/v1/accounts/${accountId}/members/${owner.id}`, admin)).body.reason_code).toBe(
      'account_owner_protected',
    );
    const remove = await call('DELETE', `/api/v1/accounts/${accountId}`, admin);
    expect([remove.status, remove.body.reason_code]).toEqual([403, 'account_role_insufficient']);
    expect((await call('PATCH', `/api/v1/accounts/${accountId}`, admin, { name: 'Roles Limited' })).body.name).toBe('Roles Limited');
  });

  it('an account token acts with its own role; its secret is shown once; revoked, it stops at once', async () => {
    const issued = await call('POST', `/api/v1/accounts/${accountId}/account_tokens`, admin, { name: 'deploy', role: 'developer' });
    expect(issued.status).toBe(201);
    const secret = issued.body.token as string;
    expect(secret).toMatch(/^acct_[A-Za-z0-9_-]{43}$/);
    expect(JSON.stringify((await call('GET', `/api/v1/accounts/${accountId}/account_tokens`, admin)).body)).not.toContain(secret);
    expect((await call('POST', `/api/v1/accounts/${accountId}/account_tokens`, admin, { name: 'root', role: 'owner' })).status).toBe(422);

    const accounts = await call('GET', '/api/v1/accounts', secret);
    expect(accounts.body.data).toEqual([expect.objectContaining({ id: accountId, role: 'developer' })]);
    const created = await createApplication(url, secret, { name: 'Deployed app', environment: 'production' });
    expect(created.status).toBe(201);
    expect(created.body.account_id).toBe(accountId);
    const listed = await call('GET', '/api/v1/applications', secret);
    expect((listed.body.data as Json[]).map((a) => a.id)).toContain(created.app!.id);
    expect((await call('POST', `/api/v1/applications/${app.id}/api_tokens`, secret, { name: 'from token' })).status).toBe(201);
    expect((await call('POST', `/api/v1/accounts/${accountId}/members`, secret, { person_id: stranger.id, role: 'auditor' })).status).toBe(
      403,
    );

    // Another account's token sees none of this account.
    const otherAccount = await createAccount(url, stranger.token, 'Elsewhere');
    const other = await call('POST', `/api/v1/accounts/${otherAccount}/account_tokens`, stranger, { name: 'other', role: 'admin' });
    expect((await call('GET', `/api/v1/applications/${app.id}`, other.body.token as string)).status).toBe(404);
    expect((await call('GET', `/api/v1/applications?account_id=${accountId}`, other.body.token as string)).status).toBe(404);

    const revoked = await call('DELETE', `/api/v1/accounts/${accountId}/account_tokens/${issued.body.id as string}`, admin);
    expect(revoked.body.revoked_at).not.toBeNull();
    expect((await call('GET', `/api/v1/applications/${app.id}`, secret)).status).toBe(401);
  });

  it("a person's token without the accounts scope manages no account", async () => {
    const plain = await personWithAccessToken(region, console, CONSOLE_REDIRECT, { email: 'plain@example.test', name: 'Pat Plain' });
    const create = await call('POST', '/api/v1/accounts', plain.token, { name: 'Nope' });
    expect([create.status, create.body.reason_code]).toEqual([403, 'insufficient_scope']);
    expect((await call('GET', `/api/v1/applications/${app.id}`, plain.token)).body.reason_code).toBe('insufficient_scope');
    // An application's API token does not create applications or accounts.
    expect((await call('POST', '/api/v1/applications', app.token, { name: 'x', environment: 'development' })).status).toBe(401);
  });

  it('honours Idempotency-Key on account creation, members, account tokens and applications (same key and body: the stored answer, once)', async () => {
    const replay = async (path: string, who: Person | string, json: Json): Promise<Json> => {
      const key = `${path}-${Math.random()}`;
      const first = await http('POST', `${url}${path}`, { headers: { ...as(who), 'idempotency-key': key }, json });
      const again = await http('POST', `${url}${path}`, { headers: { ...as(who), 'idempotency-key': key }, json });
      expect([path, first.status < 300, again.status, again.headers.get('idempotent-replayed'), again.text]).toEqual([
        path,
        true,
        first.status,
        'true',
        first.text,
      ]);
      const other = await http('POST', `${url}${path}`, {
        headers: { ...as(who), 'idempotency-key': key },
        json: { ...json, name: 'another' },
      });
      expect([path, other.status, other.body.reason_code]).toEqual([path, 422, 'idempotency_key_reused']);
      return first.body;
    };
    const before = ((await call('GET', '/api/v1/accounts', auditor)).body.data as Json[]).length;
    const account = await replay('/api/v1/accounts', auditor, { name: 'Auditor’s own' });
    expect(((await call('GET', '/api/v1/accounts', auditor)).body.data as Json[]).length).toBe(before + 1);
    const token = await replay(`/api/v1/accounts/${account.id as string}/account_tokens`, auditor, { name: 'one', role: 'admin' });
    expect(((await call('GET', `/api/v1/accounts/${account.id as string}/account_tokens`, auditor)).body.data as Json[]).length).toBe(1);
    const newcomer = await consolePerson(region, console, 'late@example.test', 'Lee Late');
    await replay(`/api/v1/accounts/${account.id as string}/members`, token.token as string, { person_id: newcomer.id, role: 'developer' });
    const created = await replay('/api/v1/applications', token.token as string, { name: 'Once', environment: 'development' });
    const apps = (await call('GET', '/api/v1/applications', token.token as string)).body.data as Json[];
    expect(apps.map((a) => a.id)).toEqual([(created.application as Json).id]);
  });

  it('the owner transfers ownership (staying admin) and deletes the account only once it owns no application', async () => {
    const refused = await call('DELETE', `/api/v1/accounts/${accountId}`, owner);
    expect([refused.status, refused.body.reason_code]).toEqual([409, 'account_has_applications']);
    const transfer = await call('PATCH', `/api/v1/accounts/${accountId}/members/${admin.id}`, owner, { role: 'owner' });
    expect([transfer.status, transfer.body.role]).toEqual([200, 'owner']);
    const members = Object.fromEntries(
      ((await call('GET', `/api/v1/accounts/${accountId}/members`, owner)).body.data as Json[]).map((m) => [m.person_id, m.role]),
    );
    expect([members[owner.id], members[admin.id]]).toEqual(['admin', 'owner']);
    const empty = await createAccount(url, owner.token, 'Empty');
    expect((await call('DELETE', `/api/v1/accounts/${empty}`, owner)).status).toBe(204);
    expect((await call('GET', `/api/v1/accounts/${empty}`, owner)).status).toBe(404);
  });
});
