import { AccountsRepository, CreateApplication, CreateApplicationCommand, ManageAccountTokens } from '@svc/decision-gateway';
import { http } from '@svc/testing';
import * as oidc from 'openid-client';
import { DataSource } from 'typeorm';
import { personWithAccessToken, type OAuthRegion } from '../oauth/support';
import { startMailDev, type MailDev } from '../support/mail';
import { startRegions, type TestRegions } from '../support/regions';

jest.setTimeout(240_000);

const REDIRECT = 'http://127.0.0.1:5556/callback';
const insecure = { execute: [oidc.allowInsecureRequests] };

interface Person {
  id: string;
  token: string;
}
interface Transfer {
  id: string;
  transfer_case: string;
  data_categories: string[];
  from_country: string;
  to_country: string;
  recipient: string;
  lawful_basis: string;
  adequacy_verdict: string;
  adequacy_table_version: string;
  recorded_at: string;
  audit_entry_id: string;
}

/**
 * Issue 18 item 3, the crossings of people rather than documents: a delegate homed in eu acting
 * for a person homed in us, and a support operator in eu reading a person homed in us. The grant
 * and the person stay in us; each crossing is in the transfer register (with its audit entry)
 * before the data is released, refused without a lawful basis, and refused when the register
 * cannot be written.
 */
describe('crossings of people: a delegate and a support operator in another region', () => {
  let stack: TestRegions;
  let mail: MailDev;
  const region = {} as Record<'us' | 'eu', OAuthRegion>;
  const app = {} as Record<'us' | 'eu', { id: string; token: string }>;
  let principal: Person;
  let delegate: Person;
  let operatorToken: string;
  let operatorTokenId: string;

  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
  const inFuture = (ms: number) => new Date(Date.now() + ms).toISOString();
  const register = async (where: 'us' | 'eu', transferCase: string): Promise<Transfer[]> => {
    const res = await http<{ data: Transfer[] }>(
      'GET',
      `${stack.url[where]}/api/v1/transfer_register?transfer_case=${transferCase}&limit=100`,
      { headers: bearer(app[where].token) },
    );
    expect(res.status).toBe(200);
    return res.body.data;
  };
  /** Runs `work` while the region's transfer register cannot be written. */
  async function withRegisterDown<T>(where: 'us' | 'eu', work: () => Promise<T>): Promise<T> {
    const database = stack.process[where].app.get(DataSource);
    await database.query('ALTER TABLE residency.transfers RENAME TO transfers_down');
    try {
      return await work();
    } finally {
      await database.query('ALTER TABLE residency.transfers_down RENAME TO transfers');
    }
  }

  beforeAll(async () => {
    mail = await startMailDev();
    stack = await startRegions('crossings', {
      regions: ['us', 'eu'],
      env: { SMTP_URL: mail.smtpUrl, MAIL_FROM: 'Sign-in <no-reply@example.test>' },
    });
    const people: Record<'us' | 'eu', Person> = {} as Record<'us' | 'eu', Person>;
    for (const [where, who] of [
      ['us', { email: 'grace@example.test', name: 'Grace Hopper', homeCountry: 'US' }],
      ['eu', { email: 'ada@example.test', name: 'Ada Lovelace', homeCountry: 'DE' }],
    ] as const) {
      region[where] = { url: stack.url[where], stack, mail, logLines: [], close: async () => undefined };
      const created = await stack.process[where].app
        .get(CreateApplication)
        .execute(CreateApplicationCommand.create({ name: `family app ${where}`, environment: 'development' }));
      app[where] = { id: created.application.id, token: created.apiToken };
      const client = await http('POST', `${stack.url[where]}/api/v1/applications/${app[where].id}/oauth_clients`, {
        headers: bearer(app[where].token),
        json: { name: 'Family app', redirect_uris: [REDIRECT] },
      });
      expect(client.status).toBe(201);
      const config = await oidc.discovery(
        new URL(stack.url[where]),
        client.body.client_id as string,
        undefined,
        oidc.ClientSecretBasic(client.body.client_secret as string),
        insecure,
      );
      people[where] = await personWithAccessToken(region[where], config, REDIRECT, who);
    }
    principal = people.us;
    delegate = people.eu;
    expect([principal.id.startsWith('usr_us_'), delegate.id.startsWith('usr_eu_')]).toEqual([true, true]);
    // The support operator: an admin account token of the account owning the eu application.
    const accounts = stack.process.eu.app.get(AccountsRepository);
    const account = await accounts.transaction(async (manager) => {
      const inserted = await accounts.insertAccount(manager, `acc_eu_${'s'.repeat(20)}`, 'support desk', new Date());
      await accounts.setApplicationAccount(manager, app.eu.id, inserted.id);
      return inserted;
    });
    const issued = await stack.process.eu.app.get(ManageAccountTokens).issue(account.id, 'support', 'admin');
    operatorToken = issued.token;
    operatorTokenId = issued.record.id;
  });
  afterAll(async () => {
    await stack?.close();
    await mail?.stop();
  });

  describe('a delegate homed in eu acting for a person homed in us', () => {
    let grantId: string;
    const offer = (body: Record<string, unknown>) =>
      http('POST', `${stack.url.us}/api/v1/delegations`, {
        headers: bearer(principal.token),
        json: {
          type: 'caregiver',
          delegate_person_id: delegate.id,
          surfaces: ['me'],
          actions: ['read'],
          expires_at: inFuture(3_600_000),
          ...body,
        },
      });

    it('refuses the offer without a lawful basis (422 naming the field), and stores nothing', async () => {
      const res = await offer({});
      expect([res.status, res.body.reason_code, (res.body.detail as { field?: string }).field]).toEqual([
        422,
        'lawful_basis_required',
        'lawful_basis',
      ]);
      // The adequacy table has no adequacy decision for a transfer into the EEA's own member state from outside: refused by the register.
      const adequacy = await offer({ lawful_basis: 'adequacy_decision' });
      expect([adequacy.status, (adequacy.body.detail as { field?: string }).field]).toEqual([422, 'lawful_basis']);
      const derogation = await offer({ lawful_basis: 'derogation' });
      expect([derogation.status, (derogation.body.detail as { field?: string }).field]).toEqual([422, 'derogation_article']);
      const listed = await http<{ data: unknown[] }>('GET', `${stack.url.us}/api/v1/delegations`, { headers: bearer(principal.token) });
      expect(listed.body.data).toEqual([]);
      expect(await register('us', 'delegate_in_other_region')).toEqual([]);
    });

    it('refuses the offer when the crossing cannot be written to the register, and stores nothing', async () => {
      const res = await withRegisterDown('us', () => offer({ lawful_basis: 'standard_contractual_clauses' }));
      expect(res.status).toBeGreaterThanOrEqual(500);
      const listed = await http<{ data: unknown[] }>('GET', `${stack.url.us}/api/v1/delegations`, { headers: bearer(principal.token) });
      expect(listed.body.data).toEqual([]);
    });

    it('keeps the grant in us and writes the crossing to the register before the grant exists', async () => {
      const res = await offer({ lawful_basis: 'standard_contractual_clauses' });
      expect(res.status).toBe(201);
      grantId = res.body.id as string;
      expect(grantId.startsWith('dlg_us_')).toBe(true);
      expect(res.body).toMatchObject({
        delegate_person_id: delegate.id,
        lawful_basis: 'standard_contractual_clauses',
        derogation_article: null,
      });
      const [entry, ...more] = await register('us', 'delegate_in_other_region');
      expect(more).toEqual([]);
      expect(entry).toMatchObject({
        id: res.body.transfer_id,
        transfer_case: 'delegate_in_other_region',
        data_categories: ['identifiers', 'delegation_grants'],
        from_country: 'US',
        to_country: 'DE',
        recipient: delegate.id,
        lawful_basis: 'standard_contractual_clauses',
        adequacy_verdict: 'eea',
      });
      expect(entry!.adequacy_table_version).toMatch(/\S/);
      expect(entry!.audit_entry_id).toMatch(/\S/);
      expect(Date.parse(entry!.recorded_at)).toBeLessThanOrEqual(Date.parse(res.body.created_at as string));
      // Nothing of the grant is stored in the delegate's region.
      const [row] = await stack.process.eu.app
        .get(DataSource)
        .query<Array<{ n: string }>>('SELECT count(*) AS n FROM gateway.delegation_grants');
      const n = row?.n;
      expect(Number(n)).toBe(0);
    });

    it("lets the delegate accept in the principal's region with the token their own region issued", async () => {
      const accepted = await http('POST', `${stack.url.us}/api/v1/delegations/${grantId}/accept`, { headers: bearer(delegate.token) });
      expect([accepted.status, accepted.body.status]).toEqual([200, 'active']);
    });

    it('refuses an act when its crossing cannot be written, and releases nothing', async () => {
      const res = await withRegisterDown('us', () =>
        http('GET', `${stack.url.us}/api/v1/me`, { headers: { ...bearer(delegate.token), 'x-delegation-grant-id': grantId } }),
      );
      expect(res.status).toBeGreaterThanOrEqual(500);
      expect(res.text).not.toContain('Grace Hopper');
      expect((await register('us', 'delegate_in_other_region')).length).toBe(1);
    });

    it("records each act's crossing before the principal's data is released to the delegate", async () => {
      const before = Date.now();
      const res = await http('GET', `${stack.url.us}/api/v1/me`, {
        headers: { ...bearer(delegate.token), 'x-delegation-grant-id': grantId },
      });
      const after = Date.now();
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        person: { id: principal.id, display_name: 'Grace Hopper' },
        acting_for: { principal_id: principal.id, delegate_id: delegate.id, delegation_grant_id: grantId },
      });
      const acts = (await register('us', 'delegate_in_other_region')).filter((t) => t.data_categories.includes('contact_data'));
      expect(acts).toHaveLength(1);
      expect(acts[0]).toMatchObject({ recipient: delegate.id, to_country: 'DE', lawful_basis: 'standard_contractual_clauses' });
      expect(Date.parse(acts[0]!.recorded_at)).toBeGreaterThanOrEqual(before - 1_000);
      expect(Date.parse(acts[0]!.recorded_at)).toBeLessThanOrEqual(after);
      // Acting again the same day on the same surface is the same crossing.
      const again = await http('GET', `${stack.url.us}/api/v1/me`, {
        headers: { ...bearer(delegate.token), 'x-delegation-grant-id': grantId },
      });
      expect(again.status).toBe(200);
      expect((await register('us', 'delegate_in_other_region')).length).toBe(2);
    });

    it('a delegate of the same region is offered as before: no basis, no crossing', async () => {
      const res = await http('POST', `${stack.url.us}/api/v1/delegations`, {
        headers: bearer(principal.token),
        json: {
          type: 'peer',
          delegate_person_id: principal.id,
          surfaces: ['me'],
          actions: ['read'],
          expires_at: inFuture(3_600_000),
          lawful_basis: 'standard_contractual_clauses',
        },
      });
      expect(res.status).toBe(422);
    });
  });

  describe('a support operator in eu reading a person homed in us', () => {
    const read = (body: Record<string, unknown>, token = operatorToken) =>
      http('POST', `${stack.url.eu}/api/v1/applications/${app.eu.id}/support_reads`, {
        headers: bearer(token),
        json: { person_id: principal.id, purpose: 'support case 4711: the person cannot sign in', ...body },
      });

    it('refuses the read without a lawful basis (422 naming the field), and records nothing', async () => {
      const res = await read({});
      expect([res.status, res.body.reason_code, (res.body.detail as { field?: string }).field]).toEqual([
        422,
        'lawful_basis_required',
        'lawful_basis',
      ]);
      expect(res.text).not.toContain('grace@example.test');
      expect(await register('eu', 'support_operator')).toEqual([]);
    });

    it("refuses the application's API token: only an account's operator reads for support", async () => {
      const res = await read({ lawful_basis: 'standard_contractual_clauses' }, app.eu.token);
      expect(res.status).toBe(401);
      expect(await register('eu', 'support_operator')).toEqual([]);
    });

    it('refuses the read when the crossing cannot be written, and releases nothing', async () => {
      const res = await withRegisterDown('eu', () => read({ lawful_basis: 'standard_contractual_clauses' }));
      expect(res.status).toBeGreaterThanOrEqual(500);
      expect(res.text).not.toContain('grace@example.test');
      expect(res.text).not.toContain('Grace Hopper');
    });

    it("records the crossing in the operator's register before the person's home region releases the profile", async () => {
      const res = await read({ lawful_basis: 'derogation', derogation_article: '49(1)(b)' });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({
        object: 'support_read',
        application_id: app.eu.id,
        operator: operatorTokenId,
        person: { id: principal.id, display_name: 'Grace Hopper', email: 'grace@example.test', home_country: 'US' },
        transfer: { from_country: 'US', to_country: 'DE', lawful_basis: 'derogation', derogation_article: '49(1)(b)' },
      });
      const [entry, ...more] = await register('eu', 'support_operator');
      expect(more).toEqual([]);
      const transfer = res.body.transfer as { id: string; audit_entry_id: string };
      expect(entry).toMatchObject({
        id: transfer.id,
        audit_entry_id: transfer.audit_entry_id,
        recipient: operatorTokenId,
        data_categories: ['identifiers', 'contact_data'],
        from_country: 'US',
        to_country: 'DE',
      });
      expect(Date.parse(entry!.recorded_at)).toBeLessThanOrEqual(Date.parse(res.body.read_at as string));
      // The person's region keeps the person; nothing of them is stored in eu's gateway.
      const [row] = await stack.process.eu.app
        .get(DataSource)
        .query<Array<{ n: string }>>('SELECT count(*) AS n FROM gateway.people WHERE id = $1', [principal.id]);
      const n = row?.n;
      expect(Number(n)).toBe(0);
    });

    it("reads a person of the operator's own region without a crossing", async () => {
      const res = await read({ person_id: delegate.id });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ person: { id: delegate.id, home_country: 'DE' }, transfer: null });
      expect((await register('eu', 'support_operator')).length).toBe(1);
    });

    it('answers an unknown person of another region 404 naming the field, without recording a crossing', async () => {
      const res = await read({ person_id: `usr_us_${'a'.repeat(20)}`, lawful_basis: 'standard_contractual_clauses' });
      expect([res.status, (res.body.detail as { field?: string }).field]).toEqual([404, 'person_id']);
      expect((await register('eu', 'support_operator')).length).toBe(1);
    });
  });
});
