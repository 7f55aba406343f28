import { auditChainFeature } from '@svc/audit-chain';
import { consentRecordsFeature } from '@svc/consent-records';
import { CreateApplication, CreateApplicationCommand, decisionGatewayFeature } from '@svc/decision-gateway';
import { startProcess, type RunningProcess } from '@svc/server';
import { createTestDatabase, deleteTestStreams, http, testEnv, uniqueBusPrefix, type TestDatabase } from '@svc/testing';
import { bearer, compliantFlow, draftFlow, recordConsent } from '../../e2e/comply/support';

/**
 * Issue 18 item 7 in one process (decision-gateway, consent-records, audit-chain): a module rule
 * refuses a flow activation across the RPC, four-eyes holds a module change until a second
 * credential approves, and a clean room answers counts only.
 */
describe('Comply in one process: modules, four-eyes, clean rooms', () => {
  let database: TestDatabase;
  let prefix: string;
  let running: RunningProcess;
  let url: string;

  const newApp = async (name: string) => {
    const created = await running.app.get(CreateApplication).execute(CreateApplicationCommand.create({ name, environment: 'development' }));
    return { id: created.application.id, token: created.apiToken };
  };

  beforeAll(async () => {
    database = await createTestDatabase('comply');
    prefix = uniqueBusPrefix();
    running = await startProcess({
      features: [decisionGatewayFeature, consentRecordsFeature, auditChainFeature],
      env: testEnv({ REGION: 'us', DATABASE_URL: database.url, BUS_PREFIX: prefix, PUBLIC_BASE_URL: 'https://us.example.test' }),
    });
    url = running.url;
  }, 60_000);
  afterAll(async () => {
    await running?.close();
    await deleteTestStreams(prefix);
    await database?.drop();
  });

  it('refuses an activation breaking an enabled module rule, naming rule and field', async () => {
    const app = await newApp('modules');
    expect((await http('PUT', `${url}/api/v1/modules/pipl`, { headers: bearer(app.token), json: { enabled: true } })).status).toBe(200);
    const flowId = await draftFlow(url, app.token, compliantFlow({ retention_period: 'P2Y' }));
    const res = await http('POST', `${url}/api/v1/flows/${flowId}/activate`, { headers: bearer(app.token) });
    expect([res.status, res.body.reason_code]).toEqual([422, 'module_rule_violated']);
    expect(res.body.detail).toMatchObject({ regime: 'pipl', rule: 'retention_ceiling', field: 'retention_period' });
  });

  it('holds a module change under four-eyes until a second credential approves', async () => {
    const app = await newApp('governed');
    const second = await http<{ api_token: { id: string; token: string } }>('POST', `${url}/api/v1/applications/${app.id}/api_tokens`, {
      headers: bearer(app.token),
      json: { name: 'second' },
    });
    const tokens = await http<{ data: Array<{ id: string }> }>('GET', `${url}/api/v1/applications/${app.id}/api_tokens`, {
      headers: bearer(app.token),
    });
    const actors = tokens.body.data.map((t) => t.id);
    const policy = await http('PUT', `${url}/api/v1/governance`, {
      headers: bearer(app.token),
      json: { roles: { change_modules: actors }, four_eyes: ['change_modules'] },
    });
    expect(policy.status).toBe(200);
    const asked = await http<{ id: string; status: string }>('PUT', `${url}/api/v1/modules/gdpr`, {
      headers: bearer(app.token),
      json: { enabled: true },
    });
    expect([asked.status, asked.body.status]).toEqual([202, 'pending']);
    expect(
      (await http('POST', `${url}/api/v1/governance/change_requests/${asked.body.id}/approve`, { headers: bearer(app.token) })).status,
    ).toBe(403);
    const approved = await http<{ status: string }>('POST', `${url}/api/v1/governance/change_requests/${asked.body.id}/approve`, {
      headers: bearer(second.body.api_token.token),
    });
    expect(approved.body.status).toBe('applied');
    expect((await http<{ enabled: boolean }>('GET', `${url}/api/v1/modules/gdpr`, { headers: bearer(app.token) })).body.enabled).toBe(true);
  });

  it('compares two consented audiences as counts only', async () => {
    const a = await newApp('room-a');
    const b = await newApp('room-b');
    const flowA = await draftFlow(url, a.token, compliantFlow());
    const flowB = await draftFlow(url, b.token, compliantFlow());
    for (const [app, flow] of [
      [a, flowA],
      [b, flowB],
    ] as const)
      expect((await http('POST', `${url}/api/v1/flows/${flow}/activate`, { headers: bearer(app.token) })).status).toBe(200);
    for (let i = 0; i < 12; i += 1) await recordConsent(url, a.token, flowA, `p${i}@example.com`, { measurement: 'granted' });
    for (let i = 0; i < 12; i += 1)
      await recordConsent(url, b.token, flowB, `P${i}@example.com`, { measurement: i < 11 ? 'granted' : 'declined' });
    const room = await http<{ id: string }>('POST', `${url}/api/v1/clean_rooms`, {
      headers: bearer(a.token),
      json: { name: 'r', partner_application_id: b.id, purpose: 'measurement', min_cohort_size: 10 },
    });
    expect(room.status).toBe(201);
    expect(
      (
        await http('POST', `${url}/api/v1/clean_rooms/${room.body.id}/accept`, {
          headers: bearer(b.token),
          json: { purpose: 'measurement' },
        })
      ).status,
    ).toBe(200);
    const compared = await http<{ counts: Record<string, number | null>; suppressed: string[] }>(
      'POST',
      `${url}/api/v1/clean_rooms/${room.body.id}/comparisons`,
      { headers: bearer(a.token) },
    );
    // a: 12, b: 11 (one declined), overlap 11 leaves a remainder of 1 of a's: the overlap is suppressed.
    expect(compared.body).toMatchObject({
      counts: { initiator_audience: 12, partner_audience: 11, overlap: null },
      suppressed: ['overlap'],
    });
  });
});
