import {
  CreateApplication,
  CreateApplicationCommand,
  DELEGATION_TYPES,
  DelegationGrants,
  DelegationGrantsService,
} from '@svc/decision-gateway';
import { http } from '@svc/testing';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as oidc from 'openid-client';
import { DataSource } from 'typeorm';
import { personWithAccessToken, startOAuthRegion, type OAuthRegion } from '../oauth/support';

const REDIRECT = 'http://127.0.0.1:5556/callback';
const insecure = { execute: [oidc.allowInsecureRequests] };

interface Person {
  id: string;
  cookie: string;
  token: string;
}

/** Spec: "Delegation grant", Authentication rule 8: a delegate acts in the principal's context. */
describe('Delegation grants', () => {
  let region: OAuthRegion;
  let app: { id: string; token: string };
  let config: oidc.Configuration;
  let principal: Person;
  let delegate: Person;
  let stranger: Person;
  let receiver: Server;
  const received: Array<{ event?: string; type?: string; data?: Record<string, unknown> }> = [];

  /** Signs the person up and runs the authorization code flow with openid-client for their access token. */
  async function person(email: string, name: string): Promise<Person> {
    return personWithAccessToken(region, config, REDIRECT, { email, name });
  }

  const bearer = (p: Person) => ({ authorization: `Bearer ${p.token}` });
  const inFuture = (ms: number) => new Date(Date.now() + ms).toISOString();

  async function offer(from: Person, body: Record<string, unknown>, headers: Record<string, string> = {}) {
    return http('POST', `${region.url}/api/v1/delegations`, { headers: { ...bearer(from), ...headers }, json: body });
  }

  async function activeGrant(type: string, surfaces = ['me'], actions = ['read']): Promise<string> {
    const offered = await offer(principal, { type, delegate_person_id: delegate.id, surfaces, actions, expires_at: inFuture(3_600_000) });
    expect(offered.status).toBe(201);
    const accepted = await http('POST', `${region.url}/api/v1/delegations/${offered.body.id as string}/accept`, {
      headers: bearer(delegate),
    });
    expect(accepted.status).toBe(200);
    expect(accepted.body.status).toBe('active');
    return offered.body.id as string;
  }

  beforeAll(async () => {
    receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push(JSON.parse(Buffer.concat(chunks).toString('utf8')) as (typeof received)[number]);
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    region = await startOAuthRegion('delegation');
    const created = await region.stack.process.us.app
      .get(CreateApplication)
      .execute(CreateApplicationCommand.create({ name: 'family app', environment: 'development' }));
    app = { id: created.application.id, token: created.apiToken };
    const client = await http('POST', `${region.url}/api/v1/applications/${app.id}/oauth_clients`, {
      headers: { authorization: `Bearer ${app.token}` },
      json: { name: 'Family app', redirect_uris: [REDIRECT] },
    });
    expect(client.status).toBe(201);
    const hook = await http('POST', `${region.url}/api/v1/applications/${app.id}/webhook_subscriptions`, {
      headers: { authorization: `Bearer ${app.token}` },
      json: {
        url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`,
        events: ['delegation.offered', 'delegation.accepted', 'delegation.revoked'],
      },
    });
    expect(hook.status).toBe(201);
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
  });
  afterAll(async () => {
    await region?.close();
    receiver.closeAllConnections();
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
  });

  describe.each(DELEGATION_TYPES.map((type) => [type]))('a %s grant', (type) => {
    let grantId: string;

    beforeAll(async () => {
      grantId = await activeGrant(type);
    });

    it("acts in the principal's context: /api/v1/me names both people and the grant", async () => {
      const res = await http('GET', `${region.url}/api/v1/me`, { headers: { ...bearer(delegate), 'x-delegation-grant-id': grantId } });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        person: { id: principal.id, display_name: 'Grace Hopper' },
        delegate: { id: delegate.id, display_name: 'Ada Lovelace' },
        acting_for: { principal_id: principal.id, delegate_id: delegate.id, delegation_grant_id: grantId, delegation_type: type },
      });
    });

    it('is refused outside the grant, and to anyone but the delegate', async () => {
      // The grant covers reading `me`; the delegations surface is never delegable.
      const outside = await http('GET', `${region.url}/api/v1/delegations`, {
        headers: { ...bearer(delegate), 'x-delegation-grant-id': grantId },
      });
      expect(outside.status).toBe(403);
      expect(outside.body.reason_code).toBe('delegation_grant_not_covering');
      const notTheirs = await http('GET', `${region.url}/api/v1/me`, {
        headers: { ...bearer(stranger), 'x-delegation-grant-id': grantId },
      });
      expect(notTheirs.status).toBe(403);
      expect(notTheirs.body.reason_code).toBe('delegation_grant_not_found');
      const byPrincipal = await http('GET', `${region.url}/api/v1/me`, {
        headers: { ...bearer(principal), 'x-delegation-grant-id': grantId },
      });
      expect(byPrincipal.status).toBe(403);
      const apiToken = await http('GET', `${region.url}/api/v1/me`, {
        headers: { authorization: `Bearer ${app.token}`, 'x-delegation-grant-id': grantId },
      });
      expect(apiToken.status).toBe(403);
      expect(apiToken.body.reason_code).toBe('delegation_grant_not_found');
    });

    it('is refused from the request after a revocation mid-way', async () => {
      const before = await http('GET', `${region.url}/api/v1/me`, { headers: { ...bearer(delegate), 'x-delegation-grant-id': grantId } });
      expect(before.status).toBe(200);
      // Either side may revoke: the principal for some types, the delegate for the others.
      const revoker = DELEGATION_TYPES.indexOf(type) % 2 === 0 ? principal : delegate;
      const revoked = await http('POST', `${region.url}/api/v1/delegations/${grantId}/revoke`, { headers: bearer(revoker) });
      expect(revoked.status).toBe(200);
      expect(revoked.body).toMatchObject({ status: 'revoked', revoked_by: revoker.id });
      const after = await http('GET', `${region.url}/api/v1/me`, { headers: { ...bearer(delegate), 'x-delegation-grant-id': grantId } });
      expect(after.status).toBe(403);
      expect(after.body.reason_code).toBe('delegation_grant_revoked');
      const again = await http('POST', `${region.url}/api/v1/delegations/${grantId}/revoke`, { headers: bearer(principal) });
      expect(again.status).toBe(200);
      expect(again.body.revoked_by).toBe(revoker.id);
    });
  });

  it('is refused before the delegate accepts, and only the delegate accepts', async () => {
    const offered = await offer(principal, {
      type: 'peer',
      delegate_person_id: delegate.id,
      surfaces: ['me'],
      actions: ['read'],
      expires_at: inFuture(3_600_000),
    });
    expect(offered.status).toBe(201);
    expect(offered.body).toMatchObject({
      object: 'delegation_grant',
      status: 'offered',
      principal_person_id: principal.id,
      delegate_person_id: delegate.id,
    });
    expect(offered.body.id).toMatch(/^dlg_us_[a-z2-7]{20}$/);
    const early = await http('GET', `${region.url}/api/v1/me`, {
      headers: { ...bearer(delegate), 'x-delegation-grant-id': offered.body.id as string },
    });
    expect(early.status).toBe(403);
    expect(early.body.reason_code).toBe('delegation_grant_not_accepted');
    const byPrincipal = await http('POST', `${region.url}/api/v1/delegations/${offered.body.id as string}/accept`, {
      headers: bearer(principal),
    });
    expect(byPrincipal.status).toBe(403);
    expect(byPrincipal.body.reason_code).toBe('delegation_grant_forbidden');
    const byStranger = await http('POST', `${region.url}/api/v1/delegations/${offered.body.id as string}/accept`, {
      headers: bearer(stranger),
    });
    expect(byStranger.status).toBe(404);
  });

  it('creates a guardian grant on operator-reviewed evidence, which the delegate still accepts before acting', async () => {
    const service = region.stack.process.us.app.get(DelegationGrantsService);
    const grant = await service.offerOnEvidence({
      type: 'guardian',
      principalPersonId: principal.id,
      delegatePersonId: delegate.id,
      applicationId: app.id,
      surfaces: ['me'],
      actions: ['read'],
      expiresAt: new Date(Date.now() + 3_600_000),
      purpose: null,
      evidenceReference: 'court-order-2026-0042',
      reviewedBy: 'operator:case-7',
    });
    expect(grant).toMatchObject({ status: 'offered', evidenceReference: 'court-order-2026-0042', principalPersonId: principal.id });
    const early = await http('GET', `${region.url}/api/v1/me`, { headers: { ...bearer(delegate), 'x-delegation-grant-id': grant.id } });
    expect(early.body.reason_code).toBe('delegation_grant_not_accepted');
    await http('POST', `${region.url}/api/v1/delegations/${grant.id}/accept`, { headers: bearer(delegate) });
    const acting = await http('GET', `${region.url}/api/v1/me`, { headers: { ...bearer(delegate), 'x-delegation-grant-id': grant.id } });
    expect(acting.status).toBe(200);
    expect(acting.body.acting_for).toMatchObject({ principal_id: principal.id, delegate_id: delegate.id, delegation_type: 'guardian' });
    await expect(
      service.offerOnEvidence({
        ...grant,
        type: 'peer' as 'guardian',
        principalPersonId: principal.id,
        delegatePersonId: delegate.id,
        applicationId: app.id,
        evidenceReference: 'x',
        reviewedBy: 'operator',
      }),
    ).rejects.toMatchObject({ code: 'delegation_grant_forbidden' });
  });

  it('is refused once expired', async () => {
    const offered = await offer(principal, {
      type: 'caregiver',
      delegate_person_id: delegate.id,
      surfaces: ['me'],
      actions: ['read'],
      expires_at: inFuture(2_500),
    });
    expect(offered.status).toBe(201);
    await http('POST', `${region.url}/api/v1/delegations/${offered.body.id as string}/accept`, { headers: bearer(delegate) });
    await new Promise((resolve) => setTimeout(resolve, 2_700));
    const res = await http('GET', `${region.url}/api/v1/me`, {
      headers: { ...bearer(delegate), 'x-delegation-grant-id': offered.body.id as string },
    });
    expect(res.status).toBe(403);
    expect(res.body.reason_code).toBe('delegation_grant_expired');
  });

  it('answers a retried offer with the same grant (Idempotency-Key) and validates fields by name', async () => {
    const body = {
      type: 'guardian',
      delegate_person_id: delegate.id,
      surfaces: ['me', 'decisions'],
      actions: ['read', 'write'],
      expires_at: inFuture(86_400_000),
      evidence_reference: 'court-order-2026-17',
    };
    const first = await offer(principal, body, { 'idempotency-key': 'offer-1' });
    const retry = await offer(principal, body, { 'idempotency-key': 'offer-1' });
    expect(first.status).toBe(201);
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.body.id).toBe(first.body.id);
    const self = await offer(principal, { ...body, delegate_person_id: principal.id });
    expect(self.status).toBe(422);
    expect(self.body.reason_code).toBe('delegate_is_principal');
    const past = await offer(principal, { ...body, expires_at: '2020-01-01T00:00:00Z' });
    expect(past.status).toBe(422);
    expect(JSON.stringify(past.body)).toContain('expires_at');
    const badType = await offer(principal, { ...body, type: 'landlord' });
    expect(badType.status).toBe(422);
    expect(JSON.stringify(badType.body)).toContain('type');
    const managing = await offer(principal, { ...body, surfaces: ['delegations'] });
    expect(managing.status).toBe(422);
    expect(JSON.stringify(managing.body)).toContain('surfaces');
    const byApiToken = await http('POST', `${region.url}/api/v1/delegations`, {
      headers: { authorization: `Bearer ${app.token}` },
      json: body,
    });
    expect(byApiToken.status).toBe(401);
  });

  it("lists the caller's grants by role with cursor pagination", async () => {
    const pages: string[] = [];
    let cursor: string | null = null;
    do {
      const res = await http('GET', `${region.url}/api/v1/delegations?role=delegate&limit=2${cursor ? `&cursor=${cursor}` : ''}`, {
        headers: bearer(delegate),
      });
      expect(res.status).toBe(200);
      pages.push(
        ...(res.body.data as Array<{ id: string; delegate_person_id: string }>).map((g) => {
          expect(g.delegate_person_id).toBe(delegate.id);
          return g.id;
        }),
      );
      cursor = res.body.next_cursor as string | null;
    } while (cursor);
    expect(new Set(pages).size).toBe(pages.length);
    expect(pages.length).toBeGreaterThanOrEqual(DELEGATION_TYPES.length);
    const strangers = await http('GET', `${region.url}/api/v1/delegations`, { headers: bearer(stranger) });
    expect(strangers.body.data).toEqual([]);
  });

  it('records each change in the audit chain naming both people, and answers the lookup for token exchange', async () => {
    const grantId = await activeGrant('it_admin');
    const lookup = region.stack.process.us.app.get(DelegationGrants);
    await expect(lookup.activeFor(grantId, delegate.id)).resolves.toMatchObject({
      principalPersonId: principal.id,
      surfaces: ['me'],
      actions: ['read'],
    });
    await expect(lookup.activeFor(grantId, stranger.id)).resolves.toBeNull();
    await http('POST', `${region.url}/api/v1/delegations/${grantId}/revoke`, { headers: bearer(delegate) });
    await expect(lookup.activeFor(grantId, delegate.id)).resolves.toBeNull();

    const dataSource = region.stack.process.us.app.get(DataSource);
    let entries: Array<{ entry_type: string; canonical: string }> = [];
    for (let i = 0; i < 100 && entries.length < 3; i++) {
      entries = await dataSource.query(
        `SELECT entry_type, canonical FROM audit.entries WHERE canonical LIKE '%' || $1 || '%' ORDER BY idx`,
        [grantId],
      );
      if (entries.length < 3) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(entries.map((e) => e.entry_type)).toEqual(['delegation.offered', 'delegation.accepted', 'delegation.revoked']);
    for (const entry of entries) {
      expect(entry.canonical).toContain(principal.id);
      expect(entry.canonical).toContain(delegate.id);
    }
    expect(entries[2]!.canonical).toContain(`"changedBy":"${delegate.id}"`);

    let hooks: typeof received = [];
    for (let i = 0; i < 100 && hooks.length < 3; i++) {
      hooks = received.filter((body) => JSON.stringify(body).includes(grantId));
      if (hooks.length < 3) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(hooks.map((h) => h.event ?? h.type).sort()).toEqual(['delegation.accepted', 'delegation.offered', 'delegation.revoked']);
    expect(JSON.stringify(hooks)).toContain(principal.id);
    expect(JSON.stringify(hooks)).toContain(delegate.id);
  });
});
