import { AccessTokenResolver, AccountAccessResolver } from '@svc/auth';
import { PlatformConfig } from '@svc/config';
import { startProcess, type RunningProcess } from '@svc/server';
import { freePort, http, testEnv } from '@svc/testing';
import { webhookDispatcherFeature } from '@svc/webhook-dispatcher';
import type * as oidc from 'openid-client';
import { startOAuthRegion, type OAuthRegion } from '../oauth/support';
import { bearer, consoleClient, consolePerson, createAccount, createApplication, type ApiApplication } from './support';

jest.setTimeout(180_000);

/**
 * A service running in its own process (webhook-dispatcher, without decision-gateway) accepts a
 * member's access token on its `@AccountAccess` routes: it asks decision-gateway of its own region
 * over `gateway.resolve_access_token` and `gateway.authorize_account`.
 */
describe('account access in a process without decision-gateway', () => {
  let region: OAuthRegion;
  let webhooks: RunningProcess;
  let webhooksUrl: string;
  let owner: { id: string; token: string };
  let stranger: { id: string; token: string };
  let app: ApiApplication;

  beforeAll(async () => {
    region = await startOAuthRegion('acct_distributed');
    const console: oidc.Configuration = await consoleClient(region);
    owner = await consolePerson(region, console, 'owner@example.test', 'Olive Owner');
    stranger = await consolePerson(region, console, 'stranger@example.test', 'Sam Stranger');
    const accountId = await createAccount(region.url, owner.token, 'Distributed Ltd');
    const created = await createApplication(region.url, owner.token, {
      account_id: accountId,
      name: 'Distributed app',
      environment: 'development',
    });
    expect(created.status).toBe(201);
    app = created.app!;
    const port = await freePort();
    webhooksUrl = `http://127.0.0.1:${port}`;
    const databaseUrl = region.stack.process.us.app.get(PlatformConfig).DATABASE_URL;
    webhooks = await startProcess({
      features: [webhookDispatcherFeature],
      env: testEnv({
        REGION: 'us',
        DATABASE_URL: databaseUrl,
        BUS_PREFIX: region.stack.prefix,
        HTTP_PORT: String(port),
        PUBLIC_BASE_URL: webhooksUrl,
        SERVICE_NAME: 'webhook-dispatcher',
      }),
    });
  });

  afterAll(async () => {
    await webhooks?.close();
    await region?.close();
  });

  it('has no verifier of its own and resolves the person through decision-gateway of the region', async () => {
    expect(webhooks.app.get(AccountAccessResolver).available).toBe(false);
    await expect(webhooks.app.get(AccessTokenResolver).resolve(owner.token)).resolves.toMatchObject({
      kind: 'access_token',
      personId: owner.id,
    });
    await expect(webhooks.app.get(AccessTokenResolver).resolve('x'.repeat(43))).resolves.toBeNull();
  });

  it('serves the member on its @AccountAccess route, refuses outsiders (404) and unknown tokens (401)', async () => {
    const path = `${webhooksUrl}/api/v1/applications/${app.id}/webhook_subscriptions`;
    expect((await http('GET', path, { headers: bearer(owner.token) })).status).toBe(200);
    const outsider = await http('GET', path, { headers: bearer(stranger.token) });
    expect([outsider.status, outsider.body.reason_code]).toEqual([404, 'application_not_found']);
    expect((await http('GET', path, { headers: bearer('x'.repeat(43)) })).status).toBe(401);
  });
});
