import { CreateApplication, CreateApplicationCommand } from '@svc/decision-gateway';
import { http, waitFor } from '@svc/testing';
import { startRegions, type TestRegions } from '../support/regions';
import { bearer, compliantFlow, draftFlow, recordConsent } from './support';

interface Module {
  regime: string;
  enabled: boolean;
  jurisdiction: string;
  rules: { withdrawal_parity: boolean; minimum_age: number; retention_ceiling: string; sensitive_purposes: string[] };
}
interface ChangeRequest {
  id: string;
  object: string;
  status: string;
  action: string;
  target: string;
  requested_by: string;
  decided_by: string | null;
  steps: Array<{ step: string; actor_id: string; audit_entry_id: string }>;
}
type Detail = { field?: string; rule?: string; regime?: string; violations?: unknown[] };

/**
 * Issue 18 item 7 (Comply: modules, governance) and item 8 (receipts state the jurisdiction of the
 * enabled modules): a module's rules are checked when a flow is activated, refusing with 422
 * naming the rule and field; governance names who may act and puts changes under four-eyes
 * approval, every step an audit entry.
 */
describe('Comply: modules and governance (eu region)', () => {
  let stack: TestRegions;
  let eu: string;
  let applicationId: string;
  let tokenA: string;
  let tokenB: string;
  let actorA: string;
  let actorB: string;

  beforeAll(async () => {
    stack = await startRegions('comply_modules', { regions: ['eu'] });
    eu = stack.url.eu;
    const created = await stack.process.eu.app
      .get(CreateApplication)
      .execute(CreateApplicationCommand.create({ name: 'comply-app', environment: 'development' }));
    applicationId = created.application.id;
    tokenA = created.apiToken;
    const issued = await http<{ api_token: { id: string; token: string } }>(
      'POST',
      `${eu}/api/v1/applications/${applicationId}/api_tokens`,
      { headers: bearer(tokenA), json: { name: 'second approver' } },
    );
    expect(issued.status).toBe(201);
    tokenB = issued.body.api_token.token;
    actorB = issued.body.api_token.id;
    const tokens = await http<{ data: Array<{ id: string }> }>('GET', `${eu}/api/v1/applications/${applicationId}/api_tokens`, {
      headers: bearer(tokenA),
    });
    actorA = tokens.body.data.map((t) => t.id).find((id) => id !== actorB)!;
  });
  afterAll(async () => {
    await stack?.close();
  });

  it('lists every regime module, disabled until enabled, with what each enforces (cursor pages)', async () => {
    const first = await http<{ data: Module[]; has_more: boolean; next_cursor: string }>('GET', `${eu}/api/v1/modules?limit=2`, {
      headers: bearer(tokenA),
    });
    expect(first.status).toBe(200);
    expect([first.body.data.map((m) => m.regime), first.body.has_more]).toEqual([['gdpr', 'uk_gdpr'], true]);
    const rest = await http<{ data: Module[]; has_more: boolean }>('GET', `${eu}/api/v1/modules?cursor=${first.body.next_cursor}`, {
      headers: bearer(tokenA),
    });
    expect([rest.body.data.map((m) => m.regime), rest.body.has_more]).toEqual([['ccpa_cpra', 'lgpd', 'pipl'], false]);
    const gdpr = first.body.data[0]!;
    expect(gdpr).toMatchObject({
      enabled: false,
      jurisdiction: 'EU',
      rules: { withdrawal_parity: true, minimum_age: 16, retention_ceiling: 'P2Y' },
    });
    expect(gdpr.rules.sensitive_purposes).toContain('health');
    const unknown = await http('GET', `${eu}/api/v1/modules/hipaa`, { headers: bearer(tokenA) });
    expect([unknown.status, unknown.body.reason_code]).toEqual([404, 'module_not_found']);
  });

  it('enables GDPR and tightens it, never below the regime floor', async () => {
    const loosened = await http('PUT', `${eu}/api/v1/modules/gdpr`, { headers: bearer(tokenA), json: { enabled: true, minimum_age: 12 } });
    expect([loosened.status, (loosened.body.detail as Detail).field]).toEqual([422, 'minimum_age']);
    const res = await http<Module>('PUT', `${eu}/api/v1/modules/gdpr`, {
      headers: bearer(tokenA),
      json: { enabled: true, minimum_age: 16, retention_ceiling: 'P18M', sensitive_purposes: ['precise_geolocation'] },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ regime: 'gdpr', enabled: true, rules: { minimum_age: 16, retention_ceiling: 'P18M' } });
    expect(res.body.rules.sensitive_purposes).toEqual(expect.arrayContaining(['health', 'precise_geolocation']));
  });

  it('refuses to activate a flow breaking a rule with 422 naming the rule and field; the flow stays a draft', async () => {
    const flowId = await draftFlow(eu, tokenA, compliantFlow({ revocation_policy: 'contact_controller' }));
    const parity = await http('POST', `${eu}/api/v1/flows/${flowId}/activate`, { headers: bearer(tokenA) });
    expect([parity.status, parity.body.reason_code]).toEqual([422, 'module_rule_violated']);
    expect(parity.body.detail).toMatchObject({ field: 'revocation_policy', rule: 'withdrawal_parity', regime: 'gdpr' });
    expect((await http('GET', `${eu}/api/v1/flows/${flowId}`, { headers: bearer(tokenA) })).body).toMatchObject({
      status: 'draft',
      flow_url: null,
    });

    await http('PATCH', `${eu}/api/v1/flows/${flowId}`, {
      headers: bearer(tokenA),
      json: { revocation_policy: 'any_time', retention_period: 'P3Y' },
    });
    const retention = await http('POST', `${eu}/api/v1/flows/${flowId}/activate`, { headers: bearer(tokenA) });
    expect([retention.status, (retention.body.detail as Detail).rule, (retention.body.detail as Detail).field]).toEqual([
      422,
      'retention_ceiling',
      'retention_period',
    ]);

    await http('PATCH', `${eu}/api/v1/flows/${flowId}`, { headers: bearer(tokenA), json: { retention_period: 'P1Y', data_fields: [] } });
    const age = await http('POST', `${eu}/api/v1/flows/${flowId}/activate`, { headers: bearer(tokenA) });
    expect([age.status, (age.body.detail as Detail).rule, (age.body.detail as Detail).field]).toEqual([422, 'minimum_age', 'data_fields']);

    const sensitive = await draftFlow(
      eu,
      tokenA,
      compliantFlow({
        purposes: [{ key: 'precise_geolocation', label: 'Where you are', mechanism: 'legitimate_interest', required: false }],
      }),
    );
    const refused = await http('POST', `${eu}/api/v1/flows/${sensitive}/activate`, { headers: bearer(tokenA) });
    expect([refused.status, (refused.body.detail as Detail).rule, (refused.body.detail as Detail).field]).toEqual([
      422,
      'sensitive_purposes',
      'purposes[0].mechanism',
    ]);

    await http('PATCH', `${eu}/api/v1/flows/${flowId}`, {
      headers: bearer(tokenA),
      json: { data_fields: [{ key: 'date_of_birth', label: 'Date of birth', required: true }] },
    });
    const activated = await http('POST', `${eu}/api/v1/flows/${flowId}/activate`, { headers: bearer(tokenA) });
    expect([activated.status, activated.body.status]).toEqual([200, 'active']);
  });

  it('a receipt states the jurisdiction of the enabled module', async () => {
    const flowId = await draftFlow(eu, tokenA, compliantFlow());
    expect((await http('POST', `${eu}/api/v1/flows/${flowId}/activate`, { headers: bearer(tokenA) })).status).toBe(200);
    const recordId = await recordConsent(eu, tokenA, flowId, 'ada@example.com', { measurement: 'granted', service: 'granted' });
    const receipt = await waitFor(async () => {
      const res = await http<{ pii_processing: { jurisdiction: string; storage_locations: string[] } }>(
        'GET',
        `${eu}/api/v1/consent_receipts/${recordId}`,
        { headers: bearer(tokenA) },
      );
      return res.status === 200 ? res.body : undefined;
    });
    expect(receipt.pii_processing).toMatchObject({ jurisdiction: 'EU', storage_locations: ['DE'] });
  });

  it('refuses a four-eyes policy that a single actor could not satisfy, and sets a valid one', async () => {
    const open = await http('GET', `${eu}/api/v1/governance`, { headers: bearer(tokenA) });
    expect(open.body).toMatchObject({
      object: 'governance_policy',
      version: 0,
      four_eyes: [],
      roles: { activate_flows: null, change_modules: null, rotate_keys: null, change_governance: null },
    });
    const lonely = await http('PUT', `${eu}/api/v1/governance`, {
      headers: bearer(tokenA),
      json: { roles: { change_modules: [actorA] }, four_eyes: ['change_modules'] },
    });
    expect([lonely.status, lonely.body.reason_code, (lonely.body.detail as Detail).field]).toEqual([
      422,
      'governance_policy_invalid',
      'roles.change_modules',
    ]);
    const stranger = await http('PUT', `${eu}/api/v1/governance`, {
      headers: bearer(tokenA),
      json: { roles: { change_modules: [actorA, 'api_token_aaaaaaaaaaaaaaaaaaaa'] }, four_eyes: [] },
    });
    expect([stranger.status, (stranger.body.detail as Detail).field]).toEqual([422, 'roles.change_modules[1]']);
    const both = [actorA, actorB];
    const set = await http('PUT', `${eu}/api/v1/governance`, {
      headers: bearer(tokenA),
      json: {
        roles: { activate_flows: both, change_modules: both, rotate_keys: both, change_governance: both },
        four_eyes: ['change_modules', 'activate_flows', 'change_governance'],
      },
    });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ version: 1, four_eyes: ['activate_flows', 'change_governance', 'change_modules'] });
    expect(typeof set.body.audit_entry_id).toBe('string');
  });

  it('a module change needs a second, different approver; each step is an audit entry', async () => {
    const asked = await http<ChangeRequest>('PUT', `${eu}/api/v1/modules/lgpd`, {
      headers: bearer(tokenA),
      json: { enabled: true, reason: 'Brazilian customers from January' },
    });
    expect(asked.status).toBe(202);
    expect(asked.body).toMatchObject({
      object: 'change_request',
      status: 'pending',
      action: 'change_modules',
      target: 'lgpd',
      requested_by: actorA,
    });
    expect((await http<Module>('GET', `${eu}/api/v1/modules/lgpd`, { headers: bearer(tokenA) })).body.enabled).toBe(false);

    const self = await http('POST', `${eu}/api/v1/governance/change_requests/${asked.body.id}/approve`, { headers: bearer(tokenA) });
    expect([self.status, self.body.reason_code]).toEqual([403, 'four_eyes_same_actor']);
    const approved = await http<ChangeRequest>('POST', `${eu}/api/v1/governance/change_requests/${asked.body.id}/approve`, {
      headers: bearer(tokenB),
    });
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({ status: 'applied', decided_by: actorB });
    expect(approved.body.steps.map((s) => [s.step, s.actor_id])).toEqual([
      ['requested', actorA],
      ['approved', actorB],
      ['applied', actorB],
    ]);
    for (const step of approved.body.steps) {
      const entry = await http<{ type: string; canonical: string }>('GET', `${eu}/api/v1/audit/entries/${step.audit_entry_id}`, {
        headers: bearer(tokenA),
      });
      expect(entry.body.type).toBe(`governance.change_${step.step}`);
      expect(JSON.parse(entry.body.canonical).data).toMatchObject({ change_request_id: asked.body.id, target: 'lgpd' });
    }
    expect((await http<Module>('GET', `${eu}/api/v1/modules/lgpd`, { headers: bearer(tokenA) })).body.enabled).toBe(true);
    const twice = await http('POST', `${eu}/api/v1/governance/change_requests/${asked.body.id}/approve`, { headers: bearer(tokenB) });
    expect([twice.status, twice.body.reason_code]).toEqual([409, 'change_request_not_pending']);
  });

  it('activating a flow under four-eyes carries out an approved change request', async () => {
    const flowId = await draftFlow(eu, tokenA, compliantFlow());
    const unapproved = await http('POST', `${eu}/api/v1/flows/${flowId}/activate`, { headers: bearer(tokenA) });
    expect([unapproved.status, unapproved.body.reason_code]).toEqual([409, 'approval_required']);
    const asked = await http<ChangeRequest>('POST', `${eu}/api/v1/governance/change_requests`, {
      headers: bearer(tokenA),
      json: { action: 'activate_flows', target: flowId, version: 1 },
    });
    expect([asked.status, asked.body.status]).toEqual([201, 'pending']);
    expect(
      (await http<ChangeRequest>('POST', `${eu}/api/v1/governance/change_requests/${asked.body.id}/approve`, { headers: bearer(tokenB) }))
        .body.status,
    ).toBe('approved');
    const activated = await http('POST', `${eu}/api/v1/flows/${flowId}/activate`, { headers: bearer(tokenA) });
    expect([activated.status, activated.body.status]).toEqual([200, 'active']);
    const carried = await http<ChangeRequest>('GET', `${eu}/api/v1/governance/change_requests/${asked.body.id}`, {
      headers: bearer(tokenA),
    });
    expect(carried.body.status).toBe('applied');
    expect(carried.body.steps.map((s) => s.step)).toEqual(['requested', 'approved', 'applied']);
  });

  it('a credential outside the role is refused; a rejected request changes nothing; requests list by status', async () => {
    const issued = await http<{ api_token: { token: string } }>('POST', `${eu}/api/v1/applications/${applicationId}/api_tokens`, {
      headers: bearer(tokenA),
      json: { name: 'outsider' },
    });
    expect(issued.status).toBe(201);
    const outsider = issued.body.api_token.token;
    const refused = await http('PUT', `${eu}/api/v1/modules/pipl`, { headers: bearer(outsider), json: { enabled: true } });
    expect([refused.status, refused.body.reason_code]).toEqual([403, 'governance_forbidden']);
    const flowId = await draftFlow(eu, outsider, compliantFlow());
    const activation = await http('POST', `${eu}/api/v1/flows/${flowId}/activate`, { headers: bearer(outsider) });
    expect([activation.status, activation.body.reason_code]).toEqual([403, 'governance_forbidden']);

    const asked = await http<ChangeRequest>('PUT', `${eu}/api/v1/modules/pipl`, { headers: bearer(tokenA), json: { enabled: true } });
    const rejected = await http<ChangeRequest>('POST', `${eu}/api/v1/governance/change_requests/${asked.body.id}/reject`, {
      headers: bearer(tokenB),
    });
    expect(rejected.body).toMatchObject({ status: 'rejected', decided_by: actorB });
    expect((await http<Module>('GET', `${eu}/api/v1/modules/pipl`, { headers: bearer(tokenA) })).body.enabled).toBe(false);
    const list = await http<{ data: ChangeRequest[] }>('GET', `${eu}/api/v1/governance/change_requests?status=rejected`, {
      headers: bearer(tokenA),
    });
    expect(list.body.data.map((r) => r.id)).toEqual([asked.body.id]);
    const policyChange = await http<ChangeRequest>('PUT', `${eu}/api/v1/governance`, {
      headers: bearer(tokenB),
      json: { roles: {}, four_eyes: [] },
    });
    expect([policyChange.status, policyChange.body.action]).toEqual([202, 'change_governance']);
  });
});
