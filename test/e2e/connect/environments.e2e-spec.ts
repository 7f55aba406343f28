import { http, waitFor } from '@svc/testing';
import { startOAuthRegion, type OAuthRegion } from '../oauth/support';
import {
  activeFlow,
  bearer,
  consoleClient,
  consolePerson,
  createAccount,
  createApplication,
  type ApiApplication,
  type Json,
} from './support';

const SANDBOX_ORIGIN = 'http://localhost:4592';
const LIVE_ORIGIN = 'https://shop.example.test';

/**
 * Spec: Identifiers (`tp_<region>_…` with region dev in development; `pk_test_*` sandbox,
 * `pk_live_*` production), Authentication rule 3 (production applications require HTTPS origins).
 * An account's sandbox and production applications never share data: one's keys and tokens
 * neither read nor write the other's flows, sessions and records; the sandbox can be reset, the
 * production application never.
 */
describe('sandbox and production environments', () => {
  let region: OAuthRegion;
  let url: string;
  let sandbox: ApiApplication;
  let live: ApiApplication;
  let sandboxFlow: string;
  let liveFlow: string;

  const record = (app: ApiApplication, flowId: string, externalId: string) =>
    http('POST', `${url}/api/v1/consent_records`, {
      headers: bearer(app.token),
      json: {
        flow_id: flowId,
        subject: { external_id: externalId },
        decisions: { newsletter: { decision: 'granted' }, research: { decision: 'declined' } },
        captured_at: new Date().toISOString(),
      },
    });
  const mint = (pk: string, origin: string, flowId: string) =>
    http('POST', `${url}/api/v1/decisions`, {
      headers: { 'x-publishable-key': pk, origin },
      json: { kind: 'consent', flow_id: flowId, delivery_mode: 'embed', embed_origin: origin },
    });
  const capture = (pk: string, origin: string, flowId: string) =>
    http('POST', `${url}/capture/v1/captures`, {
      headers: { 'x-publishable-key': pk, origin },
      json: {
        flow_id: flowId,
        fields: [
          { purpose: 'newsletter', control: 'checkbox', checked: true, default_checked: false, required: false },
          { purpose: 'research', control: 'checkbox', checked: false, default_checked: false, required: false },
        ],
      },
    });

  beforeAll(async () => {
    region = await startOAuthRegion('environments');
    url = region.url;
    const owner = await consolePerson(region, await consoleClient(region), 'envs@example.test', 'Eva Envs');
    const accountId = await createAccount(url, owner.token, 'Envs Ltd');
    const token = await http('POST', `${url}/api/v1/accounts/${accountId}/account_tokens`, {
      headers: bearer(owner.token),
      json: { name: 'deploy', role: 'developer' },
    });
    const accountToken = token.body.token as string;
    sandbox = (await createApplication(url, accountToken, { name: 'Shop (sandbox)', environment: 'development' })).app!;
    live = (await createApplication(url, accountToken, { name: 'Shop', environment: 'production' })).app!;
    expect(
      (
        await http('POST', `${url}/api/v1/applications/${sandbox.id}/allowed_origins`, {
          headers: bearer(accountToken),
          json: { allowed_origin: { origin: SANDBOX_ORIGIN } },
        })
      ).status,
    ).toBe(201);
    expect(
      (
        await http('POST', `${url}/api/v1/applications/${live.id}/allowed_origins`, {
          headers: bearer(accountToken),
          json: { allowed_origin: { origin: LIVE_ORIGIN } },
        })
      ).status,
    ).toBe(201);
    sandboxFlow = await activeFlow(url, sandbox.token);
    liveFlow = await activeFlow(url, live.token);
  });
  afterAll(async () => {
    await region?.close();
  });

  it('names the environment in the identifiers: tp_dev_… and pk_test_… in the sandbox, pk_live_… in production', async () => {
    expect([sandbox.environment, live.environment]).toEqual(['development', 'production']);
    expect(sandbox.id).toMatch(/^tp_dev_[a-z2-7]{20}$/);
    expect(sandbox.pk).toMatch(/^pk_test_/);
    expect(live.id).toMatch(/^tp_us_[a-z2-7]{20}$/);
    expect(live.pk).toMatch(/^pk_live_/);
    const rotated = await http('POST', `${url}/api/v1/applications/${live.id}/publishable_keys`, { headers: bearer(live.token) });
    expect(rotated.body.key).toMatch(/^pk_live_/);
  });

  it('a production application accepts only HTTPS origins; the sandbox also localhost over http', async () => {
    for (const origin of ['http://localhost:4593', 'http://127.0.0.1:4593', 'http://shop.example.test']) {
      const res = await http('POST', `${url}/api/v1/applications/${live.id}/allowed_origins`, {
        headers: bearer(live.token),
        json: { allowed_origin: { origin } },
      });
      expect([origin, res.status, res.body.reason_code]).toEqual([origin, 422, 'allowed_origin_requires_https']);
    }
    const local = await http('POST', `${url}/api/v1/applications/${sandbox.id}/allowed_origins`, {
      headers: bearer(sandbox.token),
      json: { allowed_origin: { origin: 'http://127.0.0.1:4593' } },
    });
    expect(local.status).toBe(201);
    expect((await mint(live.pk, LIVE_ORIGIN, liveFlow)).status).toBe(201);
  });

  it('a sandbox key or token neither writes nor reads production data, nor the other way round', async () => {
    const liveRecord = await record(live, liveFlow, 'live-1');
    expect(liveRecord.status).toBe(201);
    const liveRecordId = liveRecord.body.id as string;

    // Writes: sessions, captures and records on the other environment's flow are refused; the
    // production origin is not the sandbox key's either.
    const refusals: Array<[string, string, string, number, string]> = [
      [sandbox.pk, SANDBOX_ORIGIN, liveFlow, 404, 'flow_not_found'],
      [sandbox.pk, LIVE_ORIGIN, liveFlow, 403, 'origin_not_allowed'],
      [live.pk, LIVE_ORIGIN, sandboxFlow, 404, 'flow_not_found'],
    ];
    for (const [pk, origin, flowId, status, code] of refusals) {
      const session = await mint(pk, origin, flowId);
      expect([pk.slice(0, 8), origin, session.status, session.body.reason_code]).toEqual([pk.slice(0, 8), origin, status, code]);
      const captured = await capture(pk, origin, flowId);
      expect([pk.slice(0, 8), origin, captured.status, captured.body.reason_code]).toEqual([pk.slice(0, 8), origin, status, code]);
    }
    const crossRecord = await record(sandbox, liveFlow, 'cross-1');
    expect([crossRecord.status, crossRecord.body.reason_code]).toEqual([404, 'flow_not_found']);

    // Reads: the production application's records, status and settings are not the sandbox's to see.
    expect((await http('GET', `${url}/api/v1/consent_records/${liveRecordId}`, { headers: bearer(sandbox.token) })).status).toBe(404);
    expect(
      (
        await http('GET', `${url}/api/v1/applications/${live.id}/consent_status?subject[external_id]=live-1`, {
          headers: bearer(sandbox.token),
        })
      ).status,
    ).toBe(404);
    expect((await http('GET', `${url}/api/v1/applications/${live.id}`, { headers: bearer(sandbox.token) })).status).toBe(404);
    expect((await http('GET', `${url}/api/v1/flows/${liveFlow}`, { headers: bearer(sandbox.token) })).status).toBe(404);
    const byKey = await http('GET', `${url}/api/v1/applications/${live.id}`, { headers: { 'x-publishable-key': sandbox.pk } });
    expect([byKey.status, byKey.body.reason_code]).toEqual([403, 'publishable_key_not_allowed']);
    // …while the production application still reads its own.
    expect((await http('GET', `${url}/api/v1/consent_records/${liveRecordId}`, { headers: bearer(live.token) })).status).toBe(200);
  });

  it('resets the sandbox in every service (sessions here, records in consent-records) and never production', async () => {
    const kept = await record(live, liveFlow, 'live-2');
    expect(kept.status).toBe(201);
    const doomed = await record(sandbox, sandboxFlow, 'sandbox-1');
    expect(doomed.status).toBe(201);
    const session = await mint(sandbox.pk, SANDBOX_ORIGIN, sandboxFlow);
    expect(session.status).toBe(201);
    const sessionToken = session.body.session_token as string;
    expect((await http('GET', `${url}/api/v1/decisions/${sessionToken}`, { headers: bearer(sandbox.token) })).status).toBe(200);

    const refused = await http('POST', `${url}/api/v1/applications/${live.id}/sandbox_reset`, { headers: bearer(live.token) });
    expect([refused.status, refused.body.reason_code]).toEqual([409, 'sandbox_reset_production']);

    const reset = await http('POST', `${url}/api/v1/applications/${sandbox.id}/sandbox_reset`, { headers: bearer(sandbox.token) });
    expect(reset.status).toBe(201);
    expect(reset.body).toMatchObject({ object: 'sandbox_reset', application_id: sandbox.id });
    expect(reset.body.sessions_deleted as number).toBeGreaterThanOrEqual(1);
    expect((await http('GET', `${url}/api/v1/decisions/${sessionToken}`, { headers: bearer(sandbox.token) })).status).toBe(404);
    await waitFor(async () =>
      (await http('GET', `${url}/api/v1/consent_records/${doomed.body.id as string}`, { headers: bearer(sandbox.token) })).status === 404
        ? true
        : undefined,
    );
    const status = await http<{ purposes: Json[] }>(
      'GET',
      `${url}/api/v1/applications/${sandbox.id}/consent_status?subject[external_id]=sandbox-1`,
      { headers: bearer(sandbox.token) },
    );
    expect(status.body.purposes ?? []).toEqual([]);

    // Production is untouched; the sandbox keeps its settings, keys and flows and records again.
    expect((await http('GET', `${url}/api/v1/consent_records/${kept.body.id as string}`, { headers: bearer(live.token) })).status).toBe(
      200,
    );
    expect((await record(sandbox, sandboxFlow, 'sandbox-2')).status).toBe(201);
    expect((await mint(sandbox.pk, SANDBOX_ORIGIN, sandboxFlow)).status).toBe(201);
  });
});
