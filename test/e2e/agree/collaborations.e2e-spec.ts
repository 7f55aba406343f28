import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CreateApplication, CreateApplicationCommand } from '@svc/decision-gateway';
import { http, waitFor } from '@svc/testing';
import { codeFor, mailsTo, startMailDev, type MailDev } from '../support/mail';
import { startRegions, type TestRegions } from '../support/regions';

interface Page<T> {
  data: T[];
  has_more: boolean;
  next_cursor: string | null;
}

/** Issue 24: collaborations, shared spaces of applications and people holding agreements. */
describe('Agree: collaborations', () => {
  let stack: TestRegions;
  let mail: MailDev;
  let owner: { id: string; auth: Record<string, string> };
  let partner: { id: string; auth: Record<string, string> };
  let outsider: { id: string; auth: Record<string, string> };
  let alice: string;
  let bob: string;
  const cookies = new Map<string, string>();
  let receiver: Server;
  const hooks: Array<{ event: string; data: Record<string, unknown> }> = [];

  async function signUp(email: string, name: string): Promise<string> {
    const base = stack.url.us;
    const start = await http('POST', `${base}/people/email_codes`, {
      json: {
        purpose: 'sign_up',
        email,
        display_name: name,
        home_country: 'US',
        locale: 'en-US',
        time_zone: 'UTC',
        return_to: '/people/account',
      },
    });
    expect(start.status).toBe(202);
    const code = await codeFor(mail, email, (await mailsTo(mail, email)).length || 1);
    const verified = await http('POST', `${base}/people/email_codes/verify`, { json: { challenge_id: start.body.challenge_id, code } });
    expect(verified.status).toBe(200);
    const id = (verified.body.person as { id: string }).id;
    cookies.set(id, (verified.headers.get('set-cookie') ?? '').split(';')[0] ?? '');
    return id;
  }

  /** A signer's answer on their signing page, signed in as themselves. */
  function sign(decisionUrl: string, personId: string) {
    const url = new URL(decisionUrl);
    return http('POST', `${url.origin}/api/v1/decisions/${url.pathname.split('/').pop() ?? ''}/transitions`, {
      headers: { cookie: cookies.get(personId) ?? '', origin: url.origin },
      json: { action: 'sign' },
    });
  }

  async function application(name: string) {
    const app = await stack.process.us.app
      .get(CreateApplication)
      .execute(CreateApplicationCommand.create({ name, environment: 'development' }));
    return { id: app.application.id, auth: { authorization: `Bearer ${app.apiToken}` } };
  }

  const call = <T = Record<string, unknown>>(method: string, path: string, who: { auth: Record<string, string> }, json?: unknown) =>
    http<T>(method, `${stack.url.us}${path}`, { headers: who.auth, ...(json === undefined ? {} : { json }) });

  async function agreementOf(app: { auth: Record<string, string> }, title: string): Promise<string> {
    const res = await call<{ id: string }>('POST', '/api/v1/multi_party_agreements', app, {
      title,
      document: { media_type: 'text/plain', content_base64: Buffer.from(`${title}\n`, 'utf8').toString('base64') },
      parties: [
        { person_id: alice, role: 'buyer' },
        { person_id: bob, role: 'seller' },
      ],
    });
    expect(res.status).toBe(201);
    return res.body.id;
  }

  beforeAll(async () => {
    mail = await startMailDev();
    stack = await startRegions('collab', {
      regions: ['us'],
      env: { SMTP_URL: mail.smtpUrl, MAIL_FROM: 'Sign-in <no-reply@example.test>' },
    });
    receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        hooks.push(JSON.parse(Buffer.concat(chunks).toString('utf8')) as { event: string; data: Record<string, unknown> });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    owner = await application('e2e-collab-owner');
    const subscription = await http('POST', `${stack.url.us}/api/v1/applications/${owner.id}/webhook_subscriptions`, {
      headers: owner.auth,
      json: {
        url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`,
        events: [
          'collaboration.member_invited',
          'collaboration.member_accepted',
          'collaboration.member_declined',
          'collaboration.member_revoked',
        ],
      },
    });
    expect(subscription.status).toBe(201);
    partner = await application('e2e-collab-partner');
    outsider = await application('e2e-collab-outsider');
    alice = await signUp('alice.collab@example.test', 'Alice');
    bob = await signUp('bob.collab@example.test', 'Bob');
  }, 120_000);

  afterAll(async () => {
    await stack?.close();
    await mail?.stop();
    receiver?.closeAllConnections();
    await new Promise<void>((resolve) => (receiver ? receiver.close(() => resolve()) : resolve()));
  });

  it('an owner creates a collaboration, invites an application that accepts, attaches an agreement; members list it with its history; another application gets 404', async () => {
    const created = await call<{ id: string; role: string; membership_status: string }>('POST', '/api/v1/collaborations', owner, {
      name: 'Garden co-op',
    });
    expect(created.status).toBe(201);
    expect(created.body.id).toMatch(/^col_us_[a-z2-7]{20}$/);
    expect(created.body).toMatchObject({ role: 'owner', membership_status: 'accepted', owner_application_id: owner.id });
    const col = created.body.id;

    // Invitation of an application: it sees the collaboration as invited, and answers it itself.
    const invited = await call('POST', `/api/v1/collaborations/${col}/invitations`, owner, { application_id: partner.id, role: 'member' });
    expect(invited.status).toBe(201);
    expect(invited.body).toMatchObject({
      party_id: partner.id,
      party_type: 'application',
      role: 'member',
      status: 'invited',
      invited_by: owner.id,
    });
    expect(
      (await call('POST', `/api/v1/collaborations/${col}/invitations`, owner, { application_id: partner.id, role: 'viewer' })).body,
    ).toMatchObject({
      reason_code: 'collaboration_member_exists',
    });
    expect((await call('GET', `/api/v1/collaborations/${col}`, partner)).body).toMatchObject({
      role: 'member',
      membership_status: 'invited',
    });
    const ownerAnswers = await call('POST', `/api/v1/collaborations/${col}/members/${partner.id}/accept`, owner);
    expect(ownerAnswers.status).toBe(403);
    expect(ownerAnswers.body).toMatchObject({ reason_code: 'collaboration_invitation_not_yours' });
    const accepted = await call('POST', `/api/v1/collaborations/${col}/members/${partner.id}/accept`, partner);
    expect(accepted.status).toBe(200);
    expect(accepted.body).toMatchObject({ status: 'accepted' });
    expect((await call('POST', `/api/v1/collaborations/${col}/members/${partner.id}/decline`, partner)).status).toBe(409);

    // A person is invited; an application cannot accept on their behalf.
    const person = await call('POST', `/api/v1/collaborations/${col}/invitations`, owner, { person_id: alice, role: 'viewer' });
    expect(person.status).toBe(201);
    expect(person.body).toMatchObject({ party_type: 'person', status: 'invited' });
    expect((await call('POST', `/api/v1/collaborations/${col}/members/${alice}/accept`, owner)).body).toMatchObject({
      reason_code: 'collaboration_invitation_not_yours',
    });

    // Only the owner invites; exactly one invitee.
    expect(
      (await call('POST', `/api/v1/collaborations/${col}/invitations`, partner, { application_id: outsider.id, role: 'viewer' })).body,
    ).toMatchObject({
      reason_code: 'collaboration_role_forbidden',
    });
    const both = await call('POST', `/api/v1/collaborations/${col}/invitations`, owner, {
      application_id: outsider.id,
      person_id: bob,
      role: 'viewer',
    });
    expect(both.status).toBe(422);
    expect(both.body).toMatchObject({ reason_code: 'collaboration_invitee_invalid' });

    // The member attaches its own agreement; another application's agreement cannot be attached.
    const partnerAgreement = await agreementOf(partner, 'Shared tools');
    const ownerAgreement = await agreementOf(owner, 'Shared shed');
    const attached = await call('POST', `/api/v1/collaborations/${col}/agreements`, partner, { agreement_id: partnerAgreement });
    expect(attached.status).toBe(201);
    expect(attached.body).toMatchObject({
      agreement_id: partnerAgreement,
      title: 'Shared tools',
      status: 'pending',
      attached_by: partner.id,
    });
    expect((attached.body as { answers: unknown[] }).answers).toEqual([
      { role: 'buyer', outcome: null, decided_at: null },
      { role: 'seller', outcome: null, decided_at: null },
    ]);
    const foreign = await call('POST', `/api/v1/collaborations/${col}/agreements`, partner, { agreement_id: ownerAgreement });
    expect(foreign.status).toBe(422);
    expect(foreign.body).toMatchObject({ reason_code: 'collaboration_agreement_not_found' });
    expect((await call('POST', `/api/v1/collaborations/${col}/agreements`, owner, { agreement_id: ownerAgreement })).status).toBe(201);
    expect((await call('POST', `/api/v1/collaborations/${col}/agreements`, owner, { agreement_id: ownerAgreement })).body).toMatchObject({
      reason_code: 'collaboration_agreement_attached',
    });

    // Both members list the agreements (oldest attached first) and the history.
    for (const who of [owner, partner]) {
      const list = await call<Page<{ agreement_id: string }>>('GET', `/api/v1/collaborations/${col}/agreements`, who);
      expect(list.status).toBe(200);
      expect(list.body.data.map((a) => a.agreement_id)).toEqual([partnerAgreement, ownerAgreement]);
    }
    const history = await call<Page<{ type: string; actor: string; subject: string | null }>>(
      'GET',
      `/api/v1/collaborations/${col}/history`,
      partner,
    );
    expect(history.body.data.map((e) => e.type)).toEqual([
      'collaboration.created',
      'member.invited',
      'member.accepted',
      'member.invited',
      'agreement.created',
      'agreement.attached',
      'agreement.created',
      'agreement.attached',
    ]);
    expect(history.body.data[2]).toMatchObject({ actor: partner.id, subject: partner.id });
    const members = await call<Page<{ party_id: string; role: string; status: string }>>(
      'GET',
      `/api/v1/collaborations/${col}/members`,
      partner,
    );
    expect(members.body.data.map((m) => [m.party_id, m.role, m.status])).toEqual([
      [owner.id, 'owner', 'accepted'],
      [partner.id, 'member', 'accepted'],
      [alice, 'viewer', 'invited'],
    ]);

    // Another application sees nothing of it: 404 like an unknown collaboration, everywhere.
    for (const path of ['', '/members', '/agreements', '/history']) {
      const res = await call('GET', `/api/v1/collaborations/${col}${path}`, outsider);
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ reason_code: 'collaboration_not_found' });
    }
    expect((await call('POST', `/api/v1/collaborations/${col}/agreements`, outsider, { agreement_id: partnerAgreement })).status).toBe(404);
    expect((await call<Page<unknown>>('GET', '/api/v1/collaborations', outsider)).body.data).toEqual([]);

    // Revoked, the partner loses access; the owner cannot be revoked.
    expect((await call('POST', `/api/v1/collaborations/${col}/members/${owner.id}/revoke`, owner)).status).toBe(409);
    expect((await call('POST', `/api/v1/collaborations/${col}/members/${partner.id}/revoke`, owner)).body).toMatchObject({
      status: 'revoked',
    });
    expect((await call('GET', `/api/v1/collaborations/${col}`, partner)).status).toBe(404);

    // Every membership change reached the owner as a webhook, once, naming who made it.
    const changes = () => hooks.filter((h) => h.data.collaboration_id === col).map((h) => [h.event, h.data.party_id, h.data.actor]);
    await waitFor(() => changes().length >= 4, 20_000);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(changes()).toHaveLength(4);
    expect(changes()).toEqual(
      expect.arrayContaining([
        ['collaboration.member_invited', partner.id, owner.id],
        ['collaboration.member_accepted', partner.id, partner.id],
        ['collaboration.member_invited', alice, owner.id],
        ['collaboration.member_revoked', partner.id, owner.id],
      ]),
    );
  });

  it('lists collaborations and agreements page by page with cursors, filtered by status', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await call<{ id: string }>('POST', '/api/v1/collaborations', outsider, { name: `Space ${i}` });
      expect(res.status).toBe(201);
      ids.push(res.body.id);
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { body: Page<{ id: string }> } = await call<Page<{ id: string }>>(
        'GET',
        `/api/v1/collaborations?limit=2${cursor ? `&cursor=${cursor}` : ''}`,
        outsider,
      );
      expect(page.body.data.length).toBeLessThanOrEqual(2);
      seen.push(...page.body.data.map((c) => c.id));
      cursor = page.body.next_cursor;
      expect(page.body.has_more).toBe(cursor !== null);
    } while (cursor);
    expect(seen).toEqual(ids);
    const badCursor = await call('GET', '/api/v1/collaborations?cursor=bm90LWEtY3Vyc29y', outsider);
    expect(badCursor.status).toBe(400);
    expect(badCursor.body).toMatchObject({ reason_code: 'invalid_cursor' });

    // Agreements: three of the outsider's, one withdrawn; pages of one; the status filter.
    const agreements = [await agreementOf(outsider, 'One'), await agreementOf(outsider, 'Two'), await agreementOf(outsider, 'Three')];
    expect((await call('POST', `/api/v1/agreements/${agreements[1]}/withdraw`, outsider)).status).toBe(200);
    for (const family of ['agreements', 'multi_party_agreements']) {
      const listed: string[] = [];
      let next: string | null = null;
      do {
        const page: { status: number; body: Page<{ id: string }> } = await call<Page<{ id: string }>>(
          'GET',
          `/api/v1/${family}?limit=1${next ? `&cursor=${next}` : ''}`,
          outsider,
        );
        expect(page.status).toBe(200);
        listed.push(...page.body.data.map((a) => a.id));
        next = page.body.next_cursor;
      } while (next);
      expect(listed).toEqual(agreements);
      const withdrawn = await call<Page<{ id: string; status: string }>>('GET', `/api/v1/${family}?status=withdrawn`, outsider);
      expect(withdrawn.body.data.map((a) => [a.id, a.status])).toEqual([[agreements[1], 'withdrawn']]);
    }
    expect((await call('GET', '/api/v1/agreements?status=signed', outsider)).status).toBe(422);
    // Another application's list holds none of them.
    const partnerIds = (await call<Page<{ id: string }>>('GET', '/api/v1/agreements', partner)).body.data.map((a) => a.id);
    for (const id of agreements) expect(partnerIds).not.toContain(id);
  });

  it('holds its agreements’ history: what happened before attaching, then each signature, the activation and an amendment as they happen, page by page', async () => {
    const col = (await call<{ id: string }>('POST', '/api/v1/collaborations', owner, { name: 'Signing room' })).body.id;
    const created = await call<{ id: string; parties: Array<{ id: string; decision_url: string }> }>('POST', '/api/v1/agreements', owner, {
      title: 'Lease',
      document: { media_type: 'text/plain', content_base64: Buffer.from('Lease of the workshop.\n', 'utf8').toString('base64') },
      parties: [
        { person_id: alice, role: 'tenant' },
        { person_id: bob, role: 'landlord' },
      ],
    });
    expect(created.status).toBe(201);
    const [aliceParty, bobParty] = created.body.parties as [{ id: string; decision_url: string }, { id: string; decision_url: string }];
    // Alice signs before the agreement is attached; Bob after.
    expect((await sign(aliceParty.decision_url, alice)).status).toBe(200);
    expect((await call('POST', `/api/v1/collaborations/${col}/agreements`, owner, { agreement_id: created.body.id })).status).toBe(201);
    expect((await sign(bobParty.decision_url, bob)).status).toBe(200);
    // Amended: both parties sign the new document.
    const amendment = await call<{ id: string; parties: Array<{ decision_url: string }> }>(
      'POST',
      `/api/v1/agreements/${created.body.id}/amendments`,
      owner,
      {
        document: {
          media_type: 'text/plain',
          content_base64: Buffer.from('Lease of the workshop and the yard.\n', 'utf8').toString('base64'),
        },
      },
    );
    expect(amendment.status).toBe(201);
    expect((await sign(amendment.body.parties[0]!.decision_url, alice)).status).toBe(200);
    expect((await sign(amendment.body.parties[1]!.decision_url, bob)).status).toBe(200);

    const entries: Array<{ type: string; actor: string; subject: string | null; created_at: string }> = [];
    let cursor: string | null = null;
    do {
      const page: { status: number; body: Page<{ type: string; actor: string; subject: string | null; created_at: string }> } = await call(
        'GET',
        `/api/v1/collaborations/${col}/history?limit=2${cursor ? `&cursor=${cursor}` : ''}`,
        owner,
      );
      expect(page.status).toBe(200);
      expect(page.body.data.length).toBeLessThanOrEqual(2);
      entries.push(...page.body.data);
      cursor = page.body.next_cursor;
    } while (cursor);
    expect(entries.map((e) => [e.type, e.actor, e.subject])).toEqual([
      ['collaboration.created', owner.id, null],
      ['agreement.created', owner.id, created.body.id],
      ['signature.signed', aliceParty.id, created.body.id],
      ['agreement.attached', owner.id, created.body.id],
      ['signature.signed', bobParty.id, created.body.id],
      ['agreement.activated', created.body.id, created.body.id],
      ['agreement.amendment_proposed', owner.id, created.body.id],
      ['signature.signed', aliceParty.id, created.body.id],
      ['signature.signed', bobParty.id, created.body.id],
      ['agreement.amended', created.body.id, created.body.id],
    ]);
    // Signers are named by their party ids, never by their person ids.
    expect(JSON.stringify(entries)).not.toContain(alice);
  });
});
