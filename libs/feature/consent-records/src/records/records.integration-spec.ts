import { FakeClock } from '@svc/config';
import { http, waitFor } from '@svc/testing';
import { DataSource } from 'typeorm';
import { RecordsHarness, auth, decisions, type Json, type TestApp } from '../../test/harness';

/**
 * Spec: Consent record (Record API); Captured consent and receipts (later-record rule, frozen
 * records); consent_status; Events (consent.granted for records → consent.recorded,
 * consent.revoked, consent.purpose_revoked); Other rules (refusals by name). Issue 6 items 1, 4, 5.
 */
describe('Record API, status and withdrawals over HTTP', () => {
  const clock = new FakeClock('2026-05-01T09:00:00.000Z');
  const harness = new RecordsHarness(clock);
  let url: string;
  let app: TestApp;
  let other: TestApp;
  let flowId: string;
  let key = 0;

  const post = (json: unknown, headers: Record<string, string> = auth(app.token)) =>
    http('POST', `${url}/api/v1/consent_records`, { headers, json });
  const body = (overrides: Json = {}): Json => ({
    flow_id: flowId,
    subject: { email: 'ada@example.com', external_id: `user-${++key}` },
    decisions: decisions('granted', 'declined'),
    captured_at: '2026-04-30T12:00:00.000Z',
    idempotency_key: `key-${key}`,
    ...overrides,
  });
  const status = (query: string, token = app.token, appId = app.id) =>
    http('GET', `${url}/api/v1/applications/${appId}/consent_status?${query}`, { headers: auth(token) });

  beforeAll(async () => {
    await harness.start('records');
    url = harness.url;
    app = await harness.newApp('shop');
    other = await harness.newApp('other');
    flowId = await harness.flow(app.token);
  });
  afterAll(() => harness.close());

  describe('POST /api/v1/consent_records', () => {
    it('records a controller_attested consent: captured_at kept, recorded_at platform time, per-purpose status', async () => {
      const res = await post(body({ subject: { email: 'grace@example.com', external_id: 'grace' }, notice_digest: 'sha256:abc' }));
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({
        object: 'consent_record',
        application_id: app.id,
        flow_id: flowId,
        flow_version: 1,
        status: 'active',
        subject: { email: 'grace@example.com', external_id: 'grace' },
        collection_channel: 'controller_attested',
        captured_at: '2026-04-30T12:00:00.000Z',
        recorded_at: '2026-05-01T09:00:00.000Z',
        expires_at: '2027-04-30T12:00:00.000Z',
        notice_digest: 'sha256:abc',
        previous_record_id: null,
      });
      expect(res.body.id).toMatch(/^crec_us_[a-z2-7]{24}$/);
      expect(res.body.purposes).toEqual([
        { purpose: 'newsletter', decision: 'granted', status: 'granted', withdrawn_at: null, withdrawal_channel: null },
        { purpose: 'offers', decision: 'declined', status: 'declined', withdrawn_at: null, withdrawal_channel: null },
      ]);
      const event = await waitFor(() => harness.eventsOf('consent.recorded', (p) => p.recordId === res.body.id)[0]);
      expect(event).toMatchObject({
        flowId,
        flowVersion: 1,
        subjectExternalId: 'grace',
        subjectEmail: 'grace@example.com',
        outcomes: [
          { purpose: 'newsletter', decision: 'granted' },
          { purpose: 'offers', decision: 'declined' },
        ],
        collectionChannel: 'controller_attested',
        sendReceipt: true,
        // What the record's receipt needs, so the receipts service asks nobody: the version's wording, the application's name.
        notice: {
          locale: 'en',
          title: 'Stay in touch',
          policyUrl: '',
          consentDuration: 'P1Y',
          purposes: [
            { key: 'newsletter', label: 'Newsletter', mechanism: 'consent', required: false },
            { key: 'offers', label: 'Partner offers', mechanism: 'consent', required: false },
            { key: 'account', label: 'Account', mechanism: 'contract', required: true },
          ],
        },
        application: { name: 'shop', jurisdiction: '' },
      });
    });

    it('returns the original record on a retry with the same idempotency_key and refuses the key with another body', async () => {
      const first = body();
      const created = await post(first);
      expect(created.status).toBe(201);
      clock.advance(1000);
      const retry = await post(first);
      expect(retry.status).toBe(200);
      expect(retry.headers.get('idempotent-replayed')).toBe('true');
      expect(retry.body).toEqual(created.body);
      const changed = await post({ ...first, decisions: decisions('declined', 'declined') });
      expect([changed.status, changed.body.reason_code]).toEqual([422, 'idempotency_key_reused']);
      expect(changed.body.detail).toMatchObject({ record_id: created.body.id });
      expect(harness.eventsOf('consent.recorded', (p) => p.recordId === created.body.id)).toHaveLength(
        await waitFor(() => harness.eventsOf('consent.recorded', (p) => p.recordId === created.body.id).length),
      );
      const count = await harness.running.app
        .get(DataSource)
        .query(`SELECT count(*)::int AS n FROM consent_records.records WHERE idempotency_key = $1`, [first.idempotency_key]);
      expect(count[0].n).toBe(1);
    });

    it('commits concurrent requests in groups without losing idempotency or the later-record rule', async () => {
      const bodies = Array.from({ length: 30 }, (_, i) =>
        body({
          subject: { external_id: `burst-${i % 10}` },
          idempotency_key: `burst-${i % 20}`,
          decisions: decisions(i < 10 ? 'granted' : 'declined', 'granted'),
        }),
      );
      // Keys burst-0…9 are sent twice (i and i+20) with different bodies only for i ≥ 10; i+20 reuses key i%20.
      const results = await Promise.all(bodies.map((b) => post(b)));
      const created = results.filter((r) => r.status === 201);
      expect(created).toHaveLength(20);
      for (let i = 20; i < 30; i += 1) {
        const first = results[i - 20]!;
        const same =
          JSON.stringify(bodies[i]!.decisions) === JSON.stringify(bodies[i - 20]!.decisions) &&
          JSON.stringify(bodies[i]!.subject) === JSON.stringify(bodies[i - 20]!.subject);
        if (same) expect([results[i]!.status, results[i]!.body.id]).toEqual([200, first.body.id]);
        else expect(results[i]!.body.reason_code).toBe('idempotency_key_reused');
      }
      // Two records for burst-3 (i = 3 and 13) in whichever order they committed: one supersedes the other.
      const ids = [results[3]!.body.id, results[13]!.body.id];
      const st = await status('subject[external_id]=burst-3');
      const head = (st.body.purposes as Json[])[0]!.record_id as string;
      expect(ids).toContain(head);
      const older = ids.find((id) => id !== head) as string;
      expect((await http('GET', `${url}/api/v1/consent_records/${head}`, { headers: auth(app.token) })).body.previous_record_id).toBe(
        older,
      );
      expect((await http('GET', `${url}/api/v1/consent_records/${older}`, { headers: auth(app.token) })).body.status).toBe('superseded');
    });

    it('stores values with quotes, backslashes, dollar signs and non-ASCII exactly, and finds the person again by them', async () => {
      const subject = { email: "o'brien@example.com", external_id: `q'"\\x00 $1 \u00e9\u{1F600} {a,"b"} NULL` };
      const first = await post(
        body({ subject, decisions: decisions('granted', 'granted'), idempotency_key: `k'\\$2"{}`, notice_digest: 'sha256:a/b+c=' }),
      );
      expect(first.status).toBe(201);
      expect(first.body).toMatchObject({ subject, idempotency_key: `k'\\$2"{}`, notice_digest: 'sha256:a/b+c=' });
      clock.advance(1_000);
      const later = await post(body({ subject: { external_id: subject.external_id }, decisions: decisions('declined', 'granted') }));
      expect(later.body).toMatchObject({
        previous_record_id: first.body.id,
        withdrawn_purposes: ['newsletter'],
        subject: { email: null, external_id: subject.external_id },
      });
      const replay = await post(
        body({ subject, decisions: decisions('granted', 'granted'), idempotency_key: `k'\\$2"{}`, notice_digest: 'sha256:a/b+c=' }),
      );
      expect([replay.status, replay.body.id]).toEqual([200, first.body.id]);
      const read = await http('GET', `${url}/api/v1/consent_records/${first.body.id as string}`, { headers: auth(app.token) });
      expect(read.body).toMatchObject({ subject, status: 'superseded' });
    });

    it('refuses by name: purpose not in the flow, missing, default-ticked or mandatory consent purpose', async () => {
      const cases: Array<[Json, string, string]> = [
        [{ ...decisions('granted', 'granted'), coupons: { decision: 'granted' } }, 'purpose_not_in_flow', 'coupons'],
        [{ newsletter: { decision: 'granted' } }, 'consent_purpose_missing', 'offers'],
        [
          { ...decisions('granted', 'granted'), offers: { decision: 'granted', default_checked: true, mandatory: false } },
          'consent_purpose_default_checked',
          'offers',
        ],
        [
          { ...decisions('granted', 'granted'), newsletter: { decision: 'granted', default_checked: false, mandatory: true } },
          'consent_purpose_mandatory',
          'newsletter',
        ],
      ];
      for (const [given, reason, purpose] of cases) {
        const res = await post(body({ decisions: given }));
        expect([res.status, res.body.reason_code, (res.body.detail as Json).purpose]).toEqual([422, reason, purpose]);
        expect(res.body.message).toContain(purpose);
      }
    });

    it('accepts a decision on a non-consent purpose (contract) without requiring it', async () => {
      const res = await post(
        body({ decisions: { ...decisions('granted', 'granted'), account: { decision: 'granted', mandatory: true } } }),
      );
      expect(res.status).toBe(201);
    });

    it('refuses draft, foreign, unknown and non-capturable flows', async () => {
      const draft = await harness.flow(app.token, { activate: false });
      const openEnded = await harness.flow(app.token, { consentDuration: null });
      const foreign = await harness.flow(other.token);
      const cases: Array<[string, number, string]> = [
        [draft, 409, 'flow_not_active'],
        [openEnded, 422, 'flow_not_capturable'],
        [foreign, 404, 'flow_not_found'],
        ['flw_us_aaaaaaaaaaaaaaaaaaaa', 404, 'flow_not_found'],
        ['nope', 422, 'validation_failed'],
      ];
      for (const [id, code, reason] of cases) {
        const res = await post(body({ flow_id: id }));
        expect([id, res.status, res.body.reason_code]).toEqual([id, code, reason]);
      }
    });

    it('refuses a missing subject reference and a captured_at in the future', async () => {
      expect((await post(body({ subject: {} }))).body.reason_code).toBe('subject_reference_missing');
      const future = await post(body({ captured_at: '2026-05-01T09:10:00.000Z' }));
      expect([future.status, future.body.reason_code]).toEqual([422, 'captured_at_in_future']);
    });

    it('answers 4xx for malformed, oversized, unknown-field, wrong-type input and wrong auth', async () => {
      const malformed = await http('POST', `${url}/api/v1/consent_records`, {
        headers: { ...auth(app.token), 'content-type': 'application/json' },
        raw: '{"flow_id":',
      });
      expect([malformed.status, malformed.body.reason_code]).toEqual([400, 'malformed_json']);
      const huge = await post(body({ notice_digest: 'a'.repeat(1_100_000) }));
      expect([huge.status, huge.body.reason_code]).toEqual([413, 'payload_too_large']);
      const unknown = await post(body({ colour: 'red' }));
      expect([unknown.status, unknown.body.reason_code, (unknown.body.detail as Json).field]).toEqual([400, 'invalid_request', 'colour']);
      const nestedUnknown = await post(
        body({ decisions: { ...decisions('granted', 'granted'), offers: { decision: 'granted', colour: 'red' } } }),
      );
      expect([nestedUnknown.status, nestedUnknown.body.reason_code, (nestedUnknown.body.detail as Json).field]).toEqual([
        400,
        'invalid_request',
        'decisions.offers.colour',
      ]);
      const wrongType = await post(body({ captured_at: 12 }));
      expect([wrongType.status, wrongType.body.reason_code]).toEqual([400, 'invalid_request']);
      const wrongDecisionType = await post(body({ decisions: { ...decisions('granted', 'granted'), offers: { decision: true } } }));
      expect([wrongDecisionType.status, wrongDecisionType.body.reason_code]).toEqual([400, 'invalid_request']);
      const badDecision = await post(body({ decisions: { ...decisions('granted', 'granted'), offers: { decision: 'maybe' } } }));
      expect([badDecision.status, badDecision.body.reason_code]).toEqual([422, 'validation_failed']);
      const badEmail = await post(body({ subject: { email: 'not-an-email' } }));
      expect([badEmail.status, badEmail.body.reason_code]).toEqual([422, 'validation_failed']);
      expect((await post(body(), {})).status).toBe(401);
      expect((await post(body(), auth('not-a-token'))).status).toBe(401);
      expect((await post(body(), { 'x-publishable-key': app.pk })).status).toBe(403);
    });
  });

  describe('later records, status and withdrawals', () => {
    it('creates a new record for the same person and flow and withdraws purposes that moved granted → declined', async () => {
      const subject = { email: 'Linus@Example.com', external_id: 'linus' };
      const first = await post(body({ subject, decisions: decisions('granted', 'granted') }));
      expect(first.status).toBe(201);
      clock.advance(60_000);
      // Matched by email alone (case-insensitive): the same person.
      const second = await post(
        body({
          subject: { email: 'linus@example.com' },
          decisions: decisions('declined', 'granted'),
          captured_at: '2026-05-01T09:00:30.000Z',
        }),
      );
      expect(second.status).toBe(201);
      expect(second.body).toMatchObject({ previous_record_id: first.body.id, withdrawn_purposes: ['newsletter'], status: 'active' });
      const old = await http('GET', `${url}/api/v1/consent_records/${first.body.id as string}`, { headers: auth(app.token) });
      expect(old.body.status).toBe('superseded');
      expect(old.body.purposes).toContainEqual(
        expect.objectContaining({ purpose: 'newsletter', status: 'withdrawn', withdrawal_channel: 'newer_record' }),
      );
      const revoked = await waitFor(() => harness.eventsOf('consent.purpose_revoked', (p) => p.recordId === first.body.id)[0]);
      expect(revoked).toMatchObject({ purpose: 'newsletter', channel: 'newer_record', subjectExternalId: 'linus' });

      const byEmail = await status('subject[email]=linus%40example.com');
      expect(byEmail.status).toBe(200);
      expect(byEmail.body.purposes).toEqual([
        expect.objectContaining({ flow_id: flowId, purpose: 'newsletter', status: 'declined', record_id: second.body.id }),
        expect.objectContaining({ flow_id: flowId, purpose: 'offers', status: 'granted', record_id: second.body.id }),
      ]);
      // Unchanged decisions: a new record, nothing withdrawn.
      clock.advance(60_000);
      const third = await post(body({ subject, decisions: decisions('declined', 'granted') }));
      expect(third.body).toMatchObject({ previous_record_id: second.body.id, withdrawn_purposes: [] });
      const byId = await status('subject[external_id]=linus');
      expect((byId.body.purposes as Json[]).map((p) => [p.purpose, p.status, p.record_id])).toEqual([
        ['newsletter', 'declined', third.body.id],
        ['offers', 'granted', third.body.id],
      ]);
    });

    it('keeps records frozen: the database refuses any UPDATE', async () => {
      const res = await post(body());
      await expect(
        harness.running.app.get(DataSource).query(`UPDATE consent_records.records SET decisions = '{}' WHERE id = $1`, [res.body.id]),
      ).rejects.toThrow(/frozen/);
    });

    it('withdraws one purpose then the whole consent, recording the channel, with events', async () => {
      const created = await post(body({ subject: { external_id: 'margaret' }, decisions: decisions('granted', 'granted') }));
      const withdraw = (json: Json, id = created.body.id as string, token = app.token) =>
        http('POST', `${url}/api/v1/consent_records/${id}/withdrawals`, { headers: auth(token), json });
      const one = await withdraw({ purpose: 'offers', channel: 'mailing_tool' });
      expect(one.status).toBe(201);
      expect(one.body.purposes).toContainEqual(
        expect.objectContaining({ purpose: 'offers', status: 'withdrawn', withdrawal_channel: 'mailing_tool' }),
      );
      expect(one.body.status).toBe('active');
      expect((await withdraw({ purpose: 'offers' })).body.reason_code).toBe('purpose_already_withdrawn');
      expect((await withdraw({ purpose: 'coupons' })).body.reason_code).toBe('purpose_not_in_record');
      await waitFor(
        () => harness.eventsOf('consent.purpose_revoked', (p) => p.recordId === created.body.id && p.channel === 'mailing_tool')[0],
      );

      const whole = await withdraw({ channel: 'receipt_link' });
      expect(whole.status).toBe(201);
      expect(whole.body.status).toBe('withdrawn');
      expect(whole.body.purposes).toContainEqual(
        expect.objectContaining({ purpose: 'newsletter', status: 'withdrawn', withdrawal_channel: 'receipt_link' }),
      );
      expect([(await withdraw({})).status, (await withdraw({})).body.reason_code]).toEqual([409, 'consent_already_withdrawn']);
      const recordRevoked = await waitFor(() => harness.eventsOf('consent.record_revoked', (p) => p.recordId === created.body.id)[0]);
      expect(recordRevoked).toMatchObject({ purposes: ['newsletter'], channel: 'receipt_link' });
      expect(harness.eventsOf('consent_session.revoked')).toEqual([]);
      const st = await status('subject[external_id]=margaret');
      expect((st.body.purposes as Json[]).map((p) => [p.purpose, p.status])).toEqual([
        ['newsletter', 'withdrawn'],
        ['offers', 'withdrawn'],
      ]);

      const declined = await post(body({ subject: { external_id: 'ken' }, decisions: decisions('granted', 'declined') }));
      expect((await withdraw({ purpose: 'offers' }, declined.body.id as string)).body.reason_code).toBe('purpose_not_granted');
      clock.advance(1000);
      await post(body({ subject: { external_id: 'ken' } }));
      expect((await withdraw({}, declined.body.id as string)).body.reason_code).toBe('record_superseded');
      expect((await withdraw({}, declined.body.id as string, other.token)).status).toBe(404);
      expect((await withdraw({}, 'crec_us_aaaaaaaaaaaaaaaaaaaaaaaa')).body.reason_code).toBe('record_not_found');
      expect((await withdraw({ channel: 'newer_record' })).status).toBe(422);
      expect((await withdraw({ channel: 'organisation', colour: 1 })).status).toBe(400);
      expect((await withdraw({ purpose: 5 })).status).toBe(400);
      expect((await withdraw({}, created.body.id as string, 'bad')).status).toBe(401);
    });

    it("answers consent_status only for the caller's application, with exactly one subject reference", async () => {
      expect((await status('subject[external_id]=linus', other.token)).status).toBe(404);
      expect((await status('subject[external_id]=linus', app.token, 'tp_us_aaaaaaaaaaaaaaaaaaaa')).body.reason_code).toBe(
        'application_not_found',
      );
      expect((await status('')).body.reason_code).toBe('invalid_request');
      expect((await status('subject[external_id]=a&subject[email]=a%40b.com')).body.reason_code).toBe('invalid_request');
      expect((await status('subject[external_id]=a&colour=red')).status).toBe(400);
      expect((await status('subject[email]=nope')).status).toBe(422);
      expect((await http('GET', `${url}/api/v1/applications/${app.id}/consent_status?subject[external_id]=a`)).status).toBe(401);
      const nobody = await status('subject[external_id]=nobody');
      expect(nobody.body).toEqual({ object: 'consent_status', application_id: app.id, subject: { external_id: 'nobody' }, purposes: [] });
    });

    it("reports granted purposes as expired once the flow's consent duration has run (clock)", async () => {
      await post(
        body({ subject: { external_id: 'ttl' }, decisions: decisions('granted', 'declined'), captured_at: '2026-05-01T08:00:00.000Z' }),
      );
      clock.advance(366 * 24 * 3600_000);
      const st = await status('subject[external_id]=ttl');
      expect((st.body.purposes as Json[]).map((p) => [p.purpose, p.status, p.record_status])).toEqual([
        ['newsletter', 'expired', 'expired'],
        ['offers', 'declined', 'expired'],
      ]);
    });
  });
});
