import { Writable } from 'node:stream';
import * as oidc from 'openid-client';
import { DataSource } from 'typeorm';
import { canonicalJson, sha256Hex } from '@svc/crypto';
import { CreateApplication, CreateApplicationCommand } from '@svc/decision-gateway';
import { verifyWebhook } from '@svc/sdk-webhooks';
import { createLogger } from '@svc/telemetry';
import { http, waitFor, LoopbackReceiver } from '@svc/testing';
import { personWithAccessToken, type OAuthRegion } from '../oauth/support';
import { startMailDev } from '../support/mail';
import { FakeClock, startRegions } from '../support/regions';

jest.setTimeout(180_000);

const REDIRECT = 'http://127.0.0.1:5557/callback';
const insecure = { execute: [oidc.allowInsecureRequests] };
const DAY = 86_400_000;
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

interface Person {
  id: string;
  token: string;
}

interface Hook {
  event: string;
  application_id: string;
  data: Record<string, unknown>;
}

/**
 * Protect, data subject requests (issue 23, Deliver 2 and "Done when" 1). Spec: the Protect
 * surface (`/data_requests`), GDPR Art. 12(3) (one month, one extension of up to two months with a
 * reason), Events → Webhooks, the audit chain. The clock is a fake one that starts at the real
 * time (the people's sign-in and OAuth run on it) and is moved forward for the deadline tests.
 */
describe('data subject requests', () => {
  const clock = new FakeClock(new Date().toISOString());
  const receiver = new LoopbackReceiver();
  let region: OAuthRegion;
  let us: string;
  let app: { id: string; token: string };
  let secret: string;
  let config: oidc.Configuration;
  let grace: Person;
  let alan: Person;
  const api = () => bearer(app.token);

  const hooksOf = (requestId: string): Hook[] =>
    receiver
      .on('/dsar')
      .map((r) => r.body as unknown as Hook)
      .filter((h) => h.data.data_request_id === requestId);

  beforeAll(async () => {
    await receiver.start();
    const logLines: string[] = [];
    const destination = new Writable({
      write(chunk: Buffer, _encoding, done) {
        logLines.push(chunk.toString('utf8'));
        done();
      },
    });
    const mail = await startMailDev();
    const stack = await startRegions('protect_dsar', {
      clock,
      regions: ['us'],
      logger: createLogger({ service: 'e2e-dsar', region: 'us', level: 'warn', destination }),
      env: { SMTP_URL: mail.smtpUrl, MAIL_FROM: 'Sign-in <no-reply@example.test>', RETENTION_SWEEP_INTERVAL_MS: '0' },
    });
    region = {
      url: stack.url.us,
      stack,
      mail,
      logLines,
      close: async () => {
        await stack.close();
        await mail.stop();
      },
    };
    us = region.url;
    const created = await stack.process.us.app
      .get(CreateApplication)
      .execute(CreateApplicationCommand.create({ name: 'Acme DSAR', environment: 'development' }));
    app = { id: created.application.id, token: created.apiToken };
    const sub = await http('POST', `${us}/api/v1/applications/${app.id}/webhook_subscriptions`, {
      headers: api(),
      json: {
        url: receiver.url('/dsar'),
        events: [
          'data_request.received',
          'data_request.in_progress',
          'data_request.extended',
          'data_request.completed',
          'data_request.rejected',
        ],
      },
    });
    expect(sub.status).toBe(201);
    secret = sub.body.secret as string;
    const client = await http('POST', `${us}/api/v1/applications/${app.id}/oauth_clients`, {
      headers: api(),
      json: { name: 'Acme', redirect_uris: [REDIRECT] },
    });
    expect(client.status).toBe(201);
    config = await oidc.discovery(
      new URL(us),
      client.body.client_id as string,
      undefined,
      oidc.ClientSecretBasic(client.body.client_secret as string),
      insecure,
    );
    const g = await personWithAccessToken(region, config, REDIRECT, { email: 'grace@example.test', name: 'Grace Hopper' });
    grace = { id: g.id, token: g.token };
    const a = await personWithAccessToken(region, config, REDIRECT, { email: 'alan@example.test', name: 'Alan Turing' });
    alan = { id: a.id, token: a.token };
    for (const [person, ref] of [
      [grace, 'crm-grace'],
      [alan, 'crm-alan'],
    ] as const) {
      expect(
        (
          await http('POST', `${us}/api/v1/applications/${app.id}/person_links`, {
            headers: api(),
            json: { person_id: person.id, subject: { external_id: ref } },
          })
        ).status,
      ).toBe(201);
    }
  });
  afterAll(async () => {
    await region?.close();
    await receiver.close();
  });

  describe('the resource, its states, its clock and its webhooks', () => {
    it('the signed-in person raises an access request: received, due in 30 days, webhook and audit entry; only they and the application see it', async () => {
      const res = await http('POST', `${us}/api/v1/data_requests`, { headers: bearer(grace.token), json: { kind: 'access' } });
      expect(res.status).toBe(201);
      const receivedAt = Date.parse(res.body.received_at as string);
      expect(res.body).toMatchObject({
        object: 'data_request',
        application_id: app.id,
        person_id: grace.id,
        kind: 'access',
        status: 'received',
        raised_by: 'person',
        overdue: false,
        extended: false,
        export: null,
        result: {},
      });
      expect(Date.parse(res.body.due_at as string) - receivedAt).toBe(30 * DAY);
      const id = res.body.id as string;
      expect(id).toMatch(/^dsr_us_[a-z2-7]{20}$/);

      const [hook] = await waitFor(() => (hooksOf(id).length > 0 ? hooksOf(id) : undefined));
      expect(hook).toMatchObject({
        event: 'data_request.received',
        application_id: app.id,
        data: { data_request_id: id, person_id: grace.id, kind: 'access', status: 'received', raised_by: 'person' },
      });
      const delivery = receiver.on('/dsar').find((r) => (r.body as unknown as Hook).data.data_request_id === id)!;
      expect(verifyWebhook({ rawBody: delivery.rawBody, headers: delivery.headers, secrets: [secret], now: clock.now() }).eventType).toBe(
        'data_request.received',
      );

      // Grace reads her own; Alan and unknown ids answer 404 alike.
      expect((await http('GET', `${us}/api/v1/data_requests/${id}`, { headers: bearer(grace.token) })).body).toMatchObject({
        id,
        status: 'received',
      });
      const other = await http('GET', `${us}/api/v1/data_requests/${id}`, { headers: bearer(alan.token) });
      expect(other.status).toBe(404);
      expect(other.body.reason_code).toBe('data_request_not_found');
      expect((await http('GET', `${us}/api/v1/data_requests/${id}`, { headers: api() })).status).toBe(200);
      // A person cannot raise one about someone else; the person may not start it themself.
      const forOther = await http('POST', `${us}/api/v1/data_requests`, {
        headers: bearer(alan.token),
        json: { kind: 'access', person_id: grace.id },
      });
      expect(forOther.status).toBe(422);
      expect(forOther.body.reason_code).toBe('data_request_person_invalid');
      expect((await http('POST', `${us}/api/v1/data_requests/${id}/start`, { headers: bearer(grace.token) })).status).toBe(401);

      const entries = await waitFor(async () => {
        const list = await http<{ data: Array<{ type: string; canonical: string }> }>('GET', `${us}/api/v1/audit/entries?limit=200`, {
          headers: api(),
        });
        const hits = list.body.data.filter((e) => e.type === 'data_request.received' && e.canonical.includes(id));
        return hits.length > 0 ? hits : undefined;
      });
      expect(entries[0]!.canonical).not.toContain('grace@example.test');
    });

    it('the application raises requests for a person it linked (not for anyone else); kinds check their fields; the list is cursor-paginated', async () => {
      const unlinkedApp = await region.stack.process.us.app
        .get(CreateApplication)
        .execute(CreateApplicationCommand.create({ name: 'Other', environment: 'development' }));
      const notLinked = await http('POST', `${us}/api/v1/data_requests`, {
        headers: bearer(unlinkedApp.apiToken),
        json: { kind: 'erasure', person_id: alan.id },
      });
      expect(notLinked.status).toBe(422);
      expect(notLinked.body.reason_code).toBe('data_request_person_not_linked');
      const noPerson = await http('POST', `${us}/api/v1/data_requests`, { headers: api(), json: { kind: 'erasure' } });
      expect(noPerson.body.reason_code).toBe('data_request_person_invalid');
      const noPurposes = await http('POST', `${us}/api/v1/data_requests`, {
        headers: api(),
        json: { kind: 'objection', person_id: alan.id },
      });
      expect(noPurposes.body.reason_code).toBe('data_request_purposes_invalid');
      const stray = await http('POST', `${us}/api/v1/data_requests`, {
        headers: api(),
        json: { kind: 'access', person_id: alan.id, rectification: { display_name: 'A' } },
      });
      expect(stray.body.reason_code).toBe('data_request_rectification_invalid');
      const badKind = await http('POST', `${us}/api/v1/data_requests`, {
        headers: api(),
        json: { kind: 'everything', person_id: alan.id },
      });
      expect(badKind.status).toBe(422);

      const ids: string[] = [];
      for (const kind of ['portability', 'restriction', 'objection']) {
        clock.advance(1000);
        const res = await http('POST', `${us}/api/v1/data_requests`, {
          headers: api(),
          json: { kind, person_id: alan.id, ...(kind === 'portability' ? {} : { purposes: ['offers'] }) },
        });
        expect(res.status).toBe(201);
        expect(res.body).toMatchObject({ raised_by: 'application', person_id: alan.id, kind });
        ids.push(res.body.id as string);
      }
      const seen: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await http<{ data: Array<{ id: string }>; next_cursor: string | null }>(
          'GET',
          `${us}/api/v1/data_requests?person_id=${alan.id}&limit=2${cursor ? `&cursor=${cursor}` : ''}`,
          { headers: api() },
        );
        expect(page.status).toBe(200);
        seen.push(...page.body.data.map((r) => r.id));
        cursor = page.body.next_cursor ?? undefined;
      } while (cursor);
      expect(seen).toEqual(ids);
      // Alan lists his own: these three, none of Grace's.
      const own = await http<{ data: Array<{ id: string; person_id: string }> }>('GET', `${us}/api/v1/data_requests?limit=50`, {
        headers: bearer(alan.token),
      });
      expect(own.body.data.map((r) => r.id)).toEqual(ids);
      const filtered = await http<{ data: Array<{ id: string }> }>(
        'GET',
        `${us}/api/v1/data_requests?kind=restriction&person_id=${alan.id}`,
        { headers: api() },
      );
      expect(filtered.body.data.map((r) => r.id)).toEqual([ids[1]]);
    });

    it('start, one extension with a reason (up to 60 days), rejection with a reason: each change a webhook; a final request does not move', async () => {
      const created = await http('POST', `${us}/api/v1/data_requests`, {
        headers: api(),
        json: { kind: 'portability', person_id: grace.id },
      });
      const id = created.body.id as string;
      const due = Date.parse(created.body.due_at as string);
      const started = await http('POST', `${us}/api/v1/data_requests/${id}/start`, { headers: api() });
      expect(started.status).toBe(200);
      expect(started.body).toMatchObject({ status: 'in_progress', started_at: expect.any(String) });
      expect((await http('POST', `${us}/api/v1/data_requests/${id}/start`, { headers: api() })).body.reason_code).toBe(
        'data_request_not_started',
      );

      const tooLong = await http('POST', `${us}/api/v1/data_requests/${id}/extend`, {
        headers: api(),
        json: { days: 61, reason: 'many systems' },
      });
      expect(tooLong.status).toBe(422);
      const noReason = await http('POST', `${us}/api/v1/data_requests/${id}/extend`, { headers: api(), json: { days: 30 } });
      expect(noReason.status).toBe(400);
      const extended = await http('POST', `${us}/api/v1/data_requests/${id}/extend`, {
        headers: api(),
        json: { days: 60, reason: 'records in three archives' },
      });
      expect(extended.status).toBe(200);
      expect(extended.body).toMatchObject({ extended: true, extension_reason: 'records in three archives', status: 'in_progress' });
      expect(Date.parse(extended.body.due_at as string) - due).toBe(60 * DAY);
      const again = await http('POST', `${us}/api/v1/data_requests/${id}/extend`, { headers: api(), json: { days: 1, reason: 'more' } });
      expect(again.status).toBe(409);
      expect(again.body.reason_code).toBe('data_request_already_extended');

      const rejected = await http('POST', `${us}/api/v1/data_requests/${id}/reject`, {
        headers: api(),
        json: { reason: 'manifestly unfounded' },
      });
      expect(rejected.body).toMatchObject({ status: 'rejected', rejection_reason: 'manifestly unfounded' });
      for (const move of ['start', 'complete']) {
        const res = await http('POST', `${us}/api/v1/data_requests/${id}/${move}`, { headers: api() });
        expect(res.status).toBe(409);
        expect(res.body.reason_code).toBe('data_request_final');
      }
      const hooks = await waitFor(() => (hooksOf(id).length >= 4 ? hooksOf(id) : undefined));
      expect(hooks.map((h) => h.event).sort()).toEqual([
        'data_request.extended',
        'data_request.in_progress',
        'data_request.received',
        'data_request.rejected',
      ]);
      const ext = hooks.find((h) => h.event === 'data_request.extended')!;
      expect(ext.data).toMatchObject({ extended: true, status: 'in_progress' });
      // Free text stays in the home region's table: neither reason travels in an event.
      expect(JSON.stringify(hooks)).not.toContain('three archives');
      expect(JSON.stringify(hooks)).not.toContain('manifestly');
    });
  });

  describe("access and portability: every service contributes the person's data in their home region", () => {
    const story: { flowId?: string; agentId?: string } = {};
    const mine: { records: string[]; authorities: string[] } = { records: [], authorities: [] };
    const theirs: { records: string[]; authorities: string[] } = { records: [], authorities: [] };

    async function consentRecord(ref: string, key: string): Promise<string> {
      const res = await http('POST', `${us}/api/v1/consent_records`, {
        headers: api(),
        json: {
          flow_id: story.flowId,
          subject: { external_id: ref },
          decisions: {
            newsletter: { decision: 'granted', default_checked: false, mandatory: false },
            offers: { decision: 'granted', default_checked: false, mandatory: false },
          },
          captured_at: new Date(clock.now().getTime() - 60_000).toISOString(),
          idempotency_key: key,
        },
      });
      expect(res.status).toBe(201);
      return res.body.id as string;
    }

    async function authority(principal: string): Promise<string> {
      const res = await http('POST', `${us}/api/v1/authorities`, {
        headers: api(),
        json: {
          agent_id: story.agentId,
          principal_id: principal,
          action_bounds: { allowed: ['pay'] },
          purposes: ['shopping'],
          valid_until: new Date(clock.now().getTime() + 300 * DAY).toISOString(),
        },
      });
      expect(res.status).toBe(201);
      return res.body.id as string;
    }

    beforeAll(async () => {
      const flow = await http('POST', `${us}/api/v1/flows`, {
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
      story.flowId = flow.body.id as string;
      expect((await http('POST', `${us}/api/v1/flows/${story.flowId}/activate`, { headers: api() })).status).toBe(200);
      const agent = await http('POST', `${us}/api/v1/agents`, { headers: api(), json: { name: 'shopper' } });
      expect(agent.status).toBe(201);
      story.agentId = agent.body.id as string;

      mine.records.push(await consentRecord('crm-grace', 'grace-1'));
      theirs.records.push(await consentRecord('crm-alan', 'alan-1'));
      mine.authorities.push(await authority('crm-grace'), await authority(grace.id));
      theirs.authorities.push(await authority('crm-alan'));
      // A decision session the application bound to Grace's reference, and one to Alan's.
      for (const ref of ['crm-grace', 'crm-alan']) {
        const minted = await http('POST', `${us}/api/v1/decisions`, {
          headers: api(),
          json: { kind: 'consent', flow_id: story.flowId, principal_id: ref },
        });
        expect(minted.status).toBe(201);
      }
      // Receipts are frozen from the events, asynchronously.
      for (const id of [...mine.records, ...theirs.records]) {
        await waitFor(
          async () => (await http('GET', `${us}/api/v1/consent_receipts/${id}`, { headers: api() })).status === 200 || undefined,
          20_000,
        );
      }
      for (const id of [...mine.authorities, ...theirs.authorities]) {
        await waitFor(
          async () => (await http('GET', `${us}/api/v1/authorization_receipts/${id}`, { headers: api() })).status === 200 || undefined,
          20_000,
        );
      }
    });

    it("the export holds the person's account, sessions, consents, authorities and receipts, and nothing of another person; the manifest hashes each part; the link expires", async () => {
      const raised = await http('POST', `${us}/api/v1/data_requests`, { headers: bearer(grace.token), json: { kind: 'access' } });
      const id = raised.body.id as string;
      const done = await http('POST', `${us}/api/v1/data_requests/${id}/complete`, { headers: api() });
      expect(done.status).toBe(200);
      expect(done.body).toMatchObject({ status: 'completed', completed_at: expect.any(String) });
      const link = done.body.export as {
        url: string;
        expires_at: string;
        sha256: string;
        parts: Array<{ name: string; sha256: string; items: number }>;
      };
      expect(Date.parse(link.expires_at) - clock.now().getTime()).toBe(7 * DAY);

      // The person reads the same link on their own request.
      const asGrace = await http('GET', `${us}/api/v1/data_requests/${id}`, { headers: bearer(grace.token) });
      expect(asGrace.body.export).toEqual(link);

      const download = await http('GET', link.url.replace(/^https?:\/\/[^/]+/, us));
      expect(download.status).toBe(200);
      const doc = download.body as {
        person_id: string;
        manifest: { parts: Array<{ name: string; sha256: string; items: number }> };
        parts: Record<string, unknown[]>;
      };
      expect(doc.person_id).toBe(grace.id);
      expect(doc.manifest.parts).toEqual(link.parts);
      // Every part's digest is the SHA-256 of its canonical JSON.
      for (const part of doc.manifest.parts) {
        expect(sha256Hex(canonicalJson(doc.parts[part.name]))).toBe(part.sha256);
        expect(doc.parts[part.name]).toHaveLength(part.items);
      }
      const count = (name: string) => doc.parts[name]!.length;
      expect(count('decision-gateway/person')).toBe(1);
      expect(doc.parts['decision-gateway/person']![0]).toMatchObject({
        person_id: grace.id,
        email: 'grace@example.test',
        display_name: 'Grace Hopper',
      });
      expect(count('decision-gateway/sign_in_sessions')).toBeGreaterThan(0);
      expect(count('decision-gateway/decision_sessions')).toBe(1);
      expect((doc.parts['consent-records/consent_records'] as Array<{ record_id: string }>).map((r) => r.record_id)).toEqual(mine.records);
      expect((doc.parts['oap-authorizer/authorities'] as Array<{ authority_id: string }>).map((a) => a.authority_id).sort()).toEqual(
        [...mine.authorities].sort(),
      );
      expect((doc.parts['receipts/receipts'] as Array<{ record_id: string }>).map((r) => r.record_id).sort()).toEqual(
        [...mine.records, ...mine.authorities].sort(),
      );
      expect(count('decision-gateway/data_requests')).toBeGreaterThan(0);

      // Nothing of Alan: not his ids, his reference, his email or his name.
      const text = JSON.stringify(doc);
      for (const other of [alan.id, 'crm-alan', 'alan@example.test', 'Alan Turing', ...theirs.records, ...theirs.authorities])
        expect(text).not.toContain(other);

      // A wrong token answers 404; Alan's own request exports only Alan.
      const wrong = await http('GET', `${us}/api/v1/data_requests/${id}/export?token=${'A'.repeat(43)}`);
      expect(wrong.status).toBe(404);
      expect(wrong.body.reason_code).toBe('data_request_export_not_found');

      const hooks = await waitFor(() => (hooksOf(id).some((h) => h.event === 'data_request.completed') ? hooksOf(id) : undefined));
      expect(JSON.stringify(hooks)).not.toContain(link.url.split('token=')[1]!);

      // After seven days the link and the export are gone.
      clock.advance(7 * DAY + 1000);
      expect((await http('GET', link.url.replace(/^https?:\/\/[^/]+/, us))).status).toBe(404);
      expect((await http('GET', `${us}/api/v1/data_requests/${id}`, { headers: api() })).body.export).toBeNull();
    });

    it("erasure: the person's data is gone, the audit chain still verifies, and their old receipts no longer resolve to them", async () => {
      const db = region.stack.process.us.app.get(DataSource);
      const before = await http('GET', `${us}/api/v1/consent_receipts/${mine.records[0]!}`, { headers: api() });
      const oldPseudonym = (before.body.record as { pii_principal_id: string }).pii_principal_id;
      expect(oldPseudonym).toMatch(/^psn_/);
      const keysOf = async () =>
        Number(
          (
            (await db.query(`SELECT count(*)::int AS n FROM receipts.subject_pseudonym_keys WHERE application_id = $1`, [
              app.id,
            ])) as Array<{ n: number }>
          )[0]!.n,
        );
      const keysBefore = await keysOf();

      const raised = await http('POST', `${us}/api/v1/data_requests`, { headers: api(), json: { kind: 'erasure', person_id: grace.id } });
      expect(raised.status).toBe(201);
      const id = raised.body.id as string;
      const done = await http('POST', `${us}/api/v1/data_requests/${id}/complete`, { headers: api() });
      expect(done.status).toBe(200);
      expect(done.body).toMatchObject({
        status: 'completed',
        result: { erased: { consent_records: 1, authorities: 2, person_links: 1, account: 1 } },
      });
      expect((done.body.result as { erased: { pseudonym_keys: number } }).erased.pseudonym_keys).toBeGreaterThan(0);

      // Deleted: her consent records, her account (sign-in sessions, passkeys), the link; Alan's stay.
      expect((await http('GET', `${us}/api/v1/consent_records/${mine.records[0]!}`, { headers: api() })).status).toBe(404);
      expect((await http('GET', `${us}/api/v1/consent_records/${theirs.records[0]!}`, { headers: api() })).status).toBe(200);
      expect(await db.query(`SELECT 1 FROM gateway.people WHERE id = $1`, [grace.id])).toEqual([]);
      expect(await db.query(`SELECT 1 FROM gateway.person_sessions WHERE person_id = $1`, [grace.id])).toEqual([]);
      expect(await db.query(`SELECT 1 FROM gateway.person_links WHERE person_id = $1`, [grace.id])).toEqual([]);
      expect(await db.query(`SELECT 1 FROM gateway.decision_sessions WHERE principal_id = 'crm-grace'`)).toEqual([]);
      expect(await db.query(`SELECT 1 FROM gateway.people WHERE id = $1`, [alan.id])).toHaveLength(1);
      // Kept without the person: her authorities, revoked, for the agent's accounting.
      for (const authorityId of mine.authorities) {
        const rows = (await db.query(`SELECT principal_id, status FROM oap.authorities WHERE id = $1`, [authorityId])) as Array<{
          principal_id: string;
          status: string;
        }>;
        expect(rows).toEqual([{ principal_id: `erased:${id}`, status: 'revoked' }]);
      }
      // The application can no longer raise anything for her.
      expect(
        (await http('POST', `${us}/api/v1/data_requests`, { headers: api(), json: { kind: 'access', person_id: grace.id } })).body
          .reason_code,
      ).toBe('data_request_person_not_linked');

      // Her receipts stay, signed, but their pseudonym no longer resolves: its key is destroyed, so
      // the same reference now yields another pseudonym, and only other people's keys remain.
      const after = await http('GET', `${us}/api/v1/consent_receipts/${mine.records[0]!}`, { headers: api() });
      expect(after.status).toBe(200);
      expect((after.body.record as { pii_principal_id: string }).pii_principal_id).toBe(oldPseudonym);
      expect(await keysOf()).toBe(keysBefore - (done.body.result as { erased: { pseudonym_keys: number } }).erased.pseudonym_keys);
      const again = await http('POST', `${us}/api/v1/consent_records`, {
        headers: api(),
        json: {
          flow_id: story.flowId,
          subject: { external_id: 'crm-grace' },
          decisions: {
            newsletter: { decision: 'granted', default_checked: false, mandatory: false },
            offers: { decision: 'declined', default_checked: false, mandatory: false },
          },
          captured_at: new Date(clock.now().getTime() - 1000).toISOString(),
          idempotency_key: 'grace-after',
        },
      });
      expect(again.status).toBe(201);
      const fresh = await waitFor(async () => {
        const res = await http('GET', `${us}/api/v1/consent_receipts/${again.body.id as string}`, { headers: api() });
        return res.status === 200 ? res : undefined;
      }, 20_000);
      expect((fresh.body.record as { pii_principal_id: string }).pii_principal_id).not.toBe(oldPseudonym);

      // The chain still verifies, and holds neither her contact data nor her reference.
      const verified = await http('GET', `${us}/api/v1/audit/verify`, { headers: api() });
      expect(verified.status).toBe(200);
      expect(verified.body).toMatchObject({ valid: true });
      await waitFor(async () => {
        const list = await http<{ data: Array<{ type: string; canonical: string }> }>('GET', `${us}/api/v1/audit/entries?limit=200`, {
          headers: api(),
        });
        return list.body.data.some((e) => e.type === 'data_request.completed' && e.canonical.includes(id)) || undefined;
      });
      const chain = (await db.query(`SELECT canonical FROM audit.entries`)) as Array<{ canonical: string }>;
      const text = chain.map((e) => e.canonical).join('\n');
      for (const personal of ['grace@example.test', 'Grace Hopper', 'crm-grace']) expect(text).not.toContain(personal);
    });

    it('objection is recorded as the objection recorded event state and stops the purpose; restriction marks it restricted; rectification updates contact data', async () => {
      const db = region.stack.process.us.app.get(DataSource);
      const recordId = theirs.records[0]!;
      const complete = async (json: Record<string, unknown>) => {
        const raised = await http('POST', `${us}/api/v1/data_requests`, { headers: api(), json: { person_id: alan.id, ...json } });
        expect(raised.status).toBe(201);
        const done = await http('POST', `${us}/api/v1/data_requests/${raised.body.id as string}/complete`, { headers: api() });
        expect(done.status).toBe(200);
        return done.body as { status: string; result: Record<string, unknown> };
      };

      const objected = await complete({ kind: 'objection', purposes: ['offers'] });
      expect(objected).toMatchObject({ status: 'completed', result: { objection: { purposes: ['offers'], withdrawn: 1 } } });
      const record = await http<{ purposes: Array<{ purpose: string; status: string; withdrawal_channel: string | null }> }>(
        'GET',
        `${us}/api/v1/consent_records/${recordId}`,
        { headers: api() },
      );
      expect(record.body.purposes.find((p) => p.purpose === 'offers')).toMatchObject({
        status: 'withdrawn',
        withdrawal_channel: 'own_records',
      });
      expect(record.body.purposes.find((p) => p.purpose === 'newsletter')).toMatchObject({ status: 'granted' });
      const receipt = await waitFor(async () => {
        const res = await http('GET', `${us}/api/v1/consent_receipts/${recordId}`, { headers: api() });
        return (res.body.event as Array<{ event_state: string }>).some((e) => e.event_state === 'objection recorded') ? res : undefined;
      }, 20_000);
      expect((receipt.body.event as Array<Record<string, unknown>>).filter((e) => e.event_state === 'objection recorded')).toEqual([
        expect.objectContaining({ purpose_id: 'offers', event_type: 'explicit', event_channel: 'own_records' }),
      ]);
      expect(receipt.headers.get('x-svc-receipt-status')).toBe('partially_withdrawn');
      // A second objection finds nothing left to stop.
      expect((await complete({ kind: 'objection', purposes: ['offers'] })).result).toEqual({
        objection: { purposes: ['offers'], withdrawn: 0 },
      });

      const restricted = await complete({ kind: 'restriction', purposes: ['newsletter'] });
      expect(restricted.result).toEqual({ restriction: { purposes: ['newsletter'], restricted: 1 } });
      expect(await db.query(`SELECT purpose FROM consent_records.processing_restrictions WHERE record_id = $1`, [recordId])).toEqual([
        { purpose: 'newsletter' },
      ]);

      const rectified = await complete({
        kind: 'rectification',
        rectification: { display_name: 'Alan M. Turing', email: 'Alan.Turing@Example.test' },
      });
      expect(rectified.result).toEqual({ rectification: { fields: ['email', 'display_name'] } });
      expect(await db.query(`SELECT email, display_name, email_verified_at FROM gateway.people WHERE id = $1`, [alan.id])).toEqual([
        { email: 'alan.turing@example.test', display_name: 'Alan M. Turing', email_verified_at: null },
      ]);
      // The rectified data is not kept on the request once applied, and never went on the bus.
      expect(
        await db.query(`SELECT rectification FROM gateway.data_requests WHERE person_id = $1 AND kind = 'rectification'`, [alan.id]),
      ).toEqual([{ rectification: null }]);
    });
  });

  describe('the legal clock', () => {
    it('the clock: overdue after 30 days, and an overdue request can no longer be extended', async () => {
      const created = await http('POST', `${us}/api/v1/data_requests`, {
        headers: api(),
        json: { kind: 'restriction', person_id: alan.id, purposes: ['newsletter'] },
      });
      expect(created.status).toBe(201);
      const id = created.body.id as string;
      clock.advance(30 * DAY - 60_000);
      expect((await http('GET', `${us}/api/v1/data_requests/${id}`, { headers: api() })).body.overdue).toBe(false);
      clock.advance(120_000);
      expect((await http('GET', `${us}/api/v1/data_requests/${id}`, { headers: api() })).body.overdue).toBe(true);
      const late = await http('POST', `${us}/api/v1/data_requests/${id}/extend`, { headers: api(), json: { days: 10, reason: 'late' } });
      expect(late.status).toBe(409);
      expect(late.body).toMatchObject({ reason_code: 'data_request_overdue', detail: { due_at: created.body.due_at } });
      expect(
        (await http('GET', `${us}/api/v1/data_requests?status=received&kind=restriction&person_id=${alan.id}`, { headers: api() })).body
          .data,
      ).toEqual(expect.arrayContaining([expect.objectContaining({ id, overdue: true })]));
    });
  });
});
