import { CreateApplication, CreateApplicationCommand } from '@svc/decision-gateway';
import { http, waitFor } from '@svc/testing';
import * as oidc from 'openid-client';
import { DataSource } from 'typeorm';
import { personWithAccessToken, startOAuthRegion, type OAuthRegion } from '../oauth/support';

const REDIRECT = 'http://127.0.0.1:5556/callback';
const insecure = { execute: [oidc.allowInsecureRequests] };

interface Person {
  id: string;
  token: string;
}

interface EventRow {
  event_state: string;
  purpose_id?: string;
  entity_id: string;
  event_channel?: string;
  acted_by?: Record<string, unknown>;
}

/**
 * Spec: "Delegation grant", Authentication rule 8 (the delegate authenticates as themself; the request
 * runs in the principal's context); issue 17 Deliver 1: records, receipts and audit entries written
 * under a grant say "by D acting for P under dlg_…".
 */
describe('a delegate withdraws consent for the principal: acted_by in the record, the receipt and the audit entry', () => {
  let region: OAuthRegion;
  let app: { id: string; token: string };
  let config: oidc.Configuration;
  let principal: Person;
  let delegate: Person;
  let stranger: Person;
  let flowId: string;
  let db: DataSource;
  const api = () => ({ authorization: `Bearer ${app.token}` });
  const bearer = (p: Person) => ({ authorization: `Bearer ${p.token}` });

  /** Signs the person up and runs the authorization code flow (PAR, PKCE) with openid-client for their access token. */
  async function person(email: string, name: string): Promise<Person> {
    const p = await personWithAccessToken(region, config, REDIRECT, { email, name });
    return { id: p.id, token: p.token };
  }

  async function grant(type: string, actions: string[]): Promise<string> {
    const offered = await http('POST', `${region.url}/api/v1/delegations`, {
      headers: bearer(principal),
      json: {
        type,
        delegate_person_id: delegate.id,
        surfaces: ['me'],
        actions,
        expires_at: new Date(Date.now() + 3_600_000).toISOString(),
      },
    });
    expect(offered.status).toBe(201);
    expect(
      (await http('POST', `${region.url}/api/v1/delegations/${offered.body.id as string}/accept`, { headers: bearer(delegate) })).status,
    ).toBe(200);
    return offered.body.id as string;
  }

  /** A consent record (newsletter and offers granted) about the principal's CRM id. */
  async function record(key: string): Promise<string> {
    const res = await http('POST', `${region.url}/api/v1/consent_records`, {
      headers: api(),
      json: {
        flow_id: flowId,
        subject: { external_id: 'crm-grace-1' },
        decisions: {
          newsletter: { decision: 'granted', default_checked: false, mandatory: false },
          offers: { decision: 'granted', default_checked: false, mandatory: false },
        },
        captured_at: new Date(Date.now() - 60_000).toISOString(),
        idempotency_key: key,
      },
    });
    expect(res.status).toBe(201);
    return res.body.id as string;
  }

  const withdraw = (as: Person, recordId: string, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
    http('POST', `${region.url}/api/v1/me/consent_records/${recordId}/withdrawals`, { headers: { ...bearer(as), ...headers }, json: body });

  async function receiptRows(recordId: string, state: string): Promise<EventRow[]> {
    let rows: EventRow[] = [];
    await waitFor(async () => {
      const res = await http<{ event?: EventRow[] }>('GET', `${region.url}/api/v1/consent_receipts/${recordId}`, { headers: api() });
      rows = (res.body.event ?? []).filter((e) => e.event_state === state);
      return res.status === 200 && rows.length > 0;
    }, 20_000);
    return rows;
  }

  async function auditEntry(type: string, recordId: string): Promise<Record<string, unknown>> {
    let found: Record<string, unknown> | undefined;
    await waitFor(async () => {
      const rows = (await db.query(`SELECT canonical FROM audit.entries WHERE entry_type = $1`, [type])) as Array<{ canonical: string }>;
      const hit = rows.map((r) => JSON.parse(r.canonical) as Record<string, unknown>).find((c) => JSON.stringify(c).includes(recordId));
      found = hit;
      return hit !== undefined;
    }, 20_000);
    return found!;
  }

  beforeAll(async () => {
    region = await startOAuthRegion('acted_by');
    db = region.stack.process.us.app.get(DataSource);
    const created = await region.stack.process.us.app
      .get(CreateApplication)
      .execute(CreateApplicationCommand.create({ name: 'family app', environment: 'development' }));
    app = { id: created.application.id, token: created.apiToken };
    const client = await http('POST', `${region.url}/api/v1/applications/${app.id}/oauth_clients`, {
      headers: api(),
      json: { name: 'Family app', redirect_uris: [REDIRECT] },
    });
    expect(client.status).toBe(201);
    config = await oidc.discovery(
      new URL(region.url),
      client.body.client_id as string,
      undefined,
      oidc.ClientSecretBasic(client.body.client_secret as string),
      insecure,
    );
    principal = await person('grace@example.test', 'Grace Hopper');
    delegate = await person('ada@example.test', 'Ada Lovelace');
    stranger = await person('alan@example.test', 'Alan Turing');
    const flow = await http('POST', `${region.url}/api/v1/flows`, {
      headers: api(),
      json: {
        name: 'Letters',
        locale: 'en',
        presentation: { title: 'Stay in touch', description: 'What we send' },
        purposes: [
          { key: 'newsletter', label: 'Newsletter', description: 'A monthly letter' },
          { key: 'offers', label: 'Offers', description: 'Offers from us' },
        ],
        consent_duration: 'P1Y',
      },
    });
    expect(flow.status).toBe(201);
    flowId = flow.body.id as string;
    expect((await http('POST', `${region.url}/api/v1/flows/${flowId}/activate`, { headers: api() })).status).toBe(200);
    // The application links its CRM id to the principal: the records about that id are hers.
    expect(
      (
        await http('POST', `${region.url}/api/v1/applications/${app.id}/person_links`, {
          headers: api(),
          json: { person_id: principal.id, subject: { external_id: 'crm-grace-1' } },
        })
      ).status,
    ).toBe(201);
  });
  afterAll(() => region?.close());

  it('a caregiver withdraws one purpose for the principal: the answer, the record, the receipt and the audit entry name D, P and the grant', async () => {
    const grantId = await grant('caregiver', ['read', 'write']);
    const recordId = await record('acted-by-1');
    const res = await withdraw(delegate, recordId, { purpose: 'offers' }, { 'x-delegation-grant-id': grantId });
    expect(res.status).toBe(201);
    const actedBy = { delegate_id: delegate.id, principal_id: principal.id, delegation_grant_id: grantId, delegation_type: 'caregiver' };
    expect(res.body).toEqual({
      object: 'consent_withdrawal',
      record_id: recordId,
      application_id: app.id,
      purpose: 'offers',
      channel: 'own_records',
      withdrawn_at: expect.any(String),
      acted_by: actedBy,
    });

    // The record (as the organisation reads it).
    const read = await http<{ purposes: Array<Record<string, unknown>> }>('GET', `${region.url}/api/v1/consent_records/${recordId}`, {
      headers: api(),
    });
    expect(read.body.purposes).toEqual([
      { purpose: 'newsletter', decision: 'granted', status: 'granted', withdrawn_at: null, withdrawal_channel: null },
      {
        purpose: 'offers',
        decision: 'granted',
        status: 'withdrawn',
        withdrawn_at: res.body.withdrawn_at,
        withdrawal_channel: 'own_records',
        withdrawal_acted_by: actedBy,
      },
    ]);

    // The receipt: the withdrawal row's entity is the principal, acted_by the delegate under the grant.
    const [row] = await receiptRows(recordId, 'consent withdrawn');
    expect(row).toMatchObject({
      purpose_id: 'offers',
      event_channel: 'own_records',
      acted_by: { delegate_id: delegate.id, delegation_grant_id: grantId, delegation_type: 'caregiver' },
    });
    expect(row!.entity_id).not.toBe(delegate.id);

    // The audit entry of the withdrawal.
    const entry = await auditEntry('consent.purpose_revoked', recordId);
    expect(JSON.stringify(entry)).toContain(delegate.id);
    expect(JSON.stringify(entry)).toContain(grantId);
    expect(JSON.stringify(entry)).toContain(principal.id);
  });

  it('the principal withdrawing her own record names no delegate', async () => {
    const recordId = await record('acted-by-2');
    const res = await withdraw(principal, recordId, {});
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ record_id: recordId, purpose: null, acted_by: null });
    const [row] = await receiptRows(recordId, 'consent withdrawn');
    expect(row).not.toHaveProperty('acted_by');
    expect(row!.event_channel).toBe('own_records');
  });

  it("refuses a delegate outside the grant (read only), a stranger with the grant id, and another person's record without a grant", async () => {
    const readOnly = await grant('peer', ['read']);
    const recordId = await record('acted-by-3');
    const outside = await withdraw(delegate, recordId, { purpose: 'offers' }, { 'x-delegation-grant-id': readOnly });
    expect(outside.status).toBe(403);
    expect(outside.body.reason_code).toMatch(/^delegation_grant_/);
    const notTheirs = await withdraw(stranger, recordId, { purpose: 'offers' }, { 'x-delegation-grant-id': readOnly });
    expect(notTheirs.status).toBe(403);
    // Without a grant the delegate is only themself: the principal's record is not found for them.
    const own = await withdraw(delegate, recordId, { purpose: 'offers' });
    expect(own.status).toBe(404);
    expect(own.body.reason_code).toBe('record_not_found');
    // An API token is not a person.
    expect(
      (await http('POST', `${region.url}/api/v1/me/consent_records/${recordId}/withdrawals`, { headers: api(), json: {} })).status,
    ).toBe(401);
    const unchanged = await http<{ status: string }>('GET', `${region.url}/api/v1/consent_records/${recordId}`, { headers: api() });
    expect(unchanged.body.status).toBe('active');
  });

  it('a revoked grant stops the delegate mid-way', async () => {
    const grantId = await grant('guardian', ['read', 'write']);
    const recordId = await record('acted-by-4');
    expect((await withdraw(delegate, recordId, { purpose: 'offers' }, { 'x-delegation-grant-id': grantId })).status).toBe(201);
    expect((await http('POST', `${region.url}/api/v1/delegations/${grantId}/revoke`, { headers: bearer(principal) })).status).toBe(200);
    const after = await withdraw(delegate, recordId, { purpose: 'newsletter' }, { 'x-delegation-grant-id': grantId });
    expect(after.status).toBe(403);
    expect(after.body.reason_code).toMatch(/^delegation_grant_/);
  });
});
