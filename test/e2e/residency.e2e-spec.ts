import { CreateApplication, CreateApplicationCommand } from '@svc/decision-gateway';
import { randomBase32 } from '@svc/ids';
import { http } from '@svc/testing';
import { startRegions, type TestRegions } from './support/regions';

/** A well-formed identifier of the us region, spelled as the services mint them. */
const usId = (prefix: 'flw' | 'agent' | 'ath' | 'esc' | 'fint' | 'mla'): string =>
  `${prefix}_us_${randomBase32(prefix === 'ath' ? 24 : 20)}`;

/**
 * Spec: Authentication rule 11 and Errors (a wrong-country request is an error carrying
 * `home_country`, never the resource). Every identifier homes its request, wherever it sits: in
 * the path, the query or the body, and whatever service minted it.
 */
describe('residency across two regions: every us identifier sent to eu answers 421 with home_country', () => {
  let stack: TestRegions;
  let eu: string;
  let euToken: string;
  const usFlowId = usId('flw');

  const bearer = () => ({ authorization: `Bearer ${euToken}` });
  const misdirectedToUs = () => ({
    message: expect.stringContaining('us'),
    reason_code: 'wrong_region',
    home_country: 'US',
    detail: { home_region: 'us', home_country: 'US', home_region_url: stack.url.us },
  });

  beforeAll(async () => {
    stack = await startRegions('residency', { regions: ['us', 'eu'] });
    eu = stack.url.eu;
    const euApp = await stack.process.eu.app
      .get(CreateApplication)
      .execute(CreateApplicationCommand.create({ name: 'eu-app', environment: 'development' }));
    euToken = euApp.apiToken;
  });
  afterAll(() => stack?.close());

  it('carries home_country (ISO 3166-1 alpha-2) besides detail for a path id of the registry', async () => {
    const res = await http('GET', `${eu}/api/v1/flows/${usFlowId}`, { headers: bearer() });
    expect(res.status).toBe(421);
    expect(res.body).toEqual(misdirectedToUs());
  });

  it.each([
    ['an escalation', () => `/api/v1/oap/escalations/${usId('esc')}`, 'GET'],
    ['a form integration', () => `/api/v1/consent_records/form_integrations/${usId('fint')}`, 'GET'],
    ["a form integration's intakes", () => `/api/v1/consent_records/form_integrations/${usId('fint')}/intakes`, 'GET'],
    ["a form platform's webhook delivery", () => `/capture/v1/form_integrations/${usId('fint')}/webhook`, 'POST'],
    ['a mailing audience', () => `/api/v1/mailing_audiences/${usId('mla')}`, 'GET'],
    ["a mailing audience's syncs", () => `/api/v1/mailing_audiences/${usId('mla')}/syncs`, 'GET'],
  ])('routes %s id minted by its service (not 404 from the empty eu tables)', async (_what, path, method) => {
    const res = await http(method, `${eu}${path()}`, { headers: bearer(), ...(method === 'POST' ? { json: {} } : {}) });
    expect(res.status).toBe(421);
    expect(res.body).toEqual(misdirectedToUs());
  });

  it.each([
    ['POST /api/v1/decisions (flow_id)', '/api/v1/decisions', () => ({ kind: 'consent', flow_id: usFlowId })],
    ['POST /api/v1/consent_sessions (flow_id)', '/api/v1/consent_sessions', () => ({ flow_id: usFlowId })],
    [
      'POST /api/v1/decisions/principal_assertions (flow_id)',
      '/api/v1/decisions/principal_assertions',
      () => ({ principal_id: 'user_1', flow_id: usFlowId }),
    ],
    [
      'POST /api/v1/consent_records (flow_id)',
      '/api/v1/consent_records',
      () => ({ flow_id: usFlowId, subject: { email: 'a@example.com' }, purposes: [] }),
    ],
    ['POST /api/v1/consent_records/imports (flow_id)', '/api/v1/consent_records/imports', () => ({ flow_id: usFlowId, records: [] })],
    ['POST /api/v1/disclosure_receipts (flow_id)', '/api/v1/disclosure_receipts', () => ({ flow_id: usFlowId })],
    ['POST /api/v1/authorities (agent_id)', '/api/v1/authorities', () => ({ agent_id: usId('agent'), principal_id: 'user_1' })],
    ['POST /api/v1/grants (agent_id)', '/api/v1/grants', () => ({ agent_id: usId('agent') })],
    ['POST /api/v1/mailing_audiences (flow_id)', '/api/v1/mailing_audiences', () => ({ flow_id: usFlowId })],
    [
      'POST /api/v1/consent_records/form_integrations (flow_id)',
      '/api/v1/consent_records/form_integrations',
      () => ({ flow_id: usFlowId }),
    ],
  ])('routes a us id in the body of %s like a path id', async (_what, path, body) => {
    const res = await http('POST', `${eu}${path}`, { headers: bearer(), json: body() });
    expect(res.status).toBe(421);
    expect(res.body).toMatchObject({ reason_code: 'wrong_region', home_country: 'US', detail: { home_region: 'us', home_country: 'US' } });
  });

  it('refuses a revocation of a us grant at eu with grant_region_mismatch and home_country', async () => {
    const res = await http('POST', `${eu}/api/v1/oap/revocations`, { headers: bearer(), json: { grant_id: usId('ath') } });
    expect(res.status).toBe(421);
    expect(res.body).toMatchObject({
      reason_code: 'grant_region_mismatch',
      home_country: 'US',
      detail: { home_region: 'us', home_country: 'US' },
    });
  });

  it('serves a body naming a local id locally: an unknown eu flow is 404, not 421', async () => {
    const res = await http('POST', `${eu}/api/v1/decisions`, {
      headers: bearer(),
      json: { kind: 'consent', flow_id: `flw_eu_${randomBase32(20)}` },
    });
    expect(res.status).not.toBe(421);
    expect(res.status).toBeLessThan(500);
  });
});
