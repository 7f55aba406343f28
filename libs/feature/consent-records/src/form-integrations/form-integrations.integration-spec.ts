import { createHmac } from 'node:crypto';
import { FakeClock } from '@svc/config';
import { http, waitFor } from '@svc/testing';
import { DataSource } from 'typeorm';
import { RecordsHarness, auth, type Json, type TestApp } from '../../test/harness';

const FORM_ID = 'lT4Z3j';

/** Typeform's documented signature: `sha256=` + base64 of HMAC-SHA256 over the raw body, keyed with the secret. */
const sign = (secret: string, raw: string): string => `sha256=${createHmac('sha256', secret).update(raw, 'utf8').digest('base64')}`;

type Answer = Json & { field: { id: string; type: string; ref: string } };

const definitionField = (ref: string, type: string, extra: Json = {}): Json => ({
  id: `id_${ref}`,
  title: `Question ${ref}`,
  type,
  ref,
  allow_multiple_selections: false,
  allow_other_choice: false,
  ...extra,
});
const field = (ref: string, type: string) => ({ id: `id_${ref}`, type, ref });
const emailAnswer = (email: string): Answer => ({ type: 'email', email, field: field('email', 'email') });
const yesNo = (ref: string, value: boolean, type = 'yes_no'): Answer => ({ type: 'boolean', boolean: value, field: field(ref, type) });

/** A Typeform `form_response` webhook body, shaped like Typeform's documented example payload. */
function typeformBody(
  token: string,
  options: { answers?: Answer[]; fields?: Json[]; eventType?: string; formId?: string; submittedAt?: string; hidden?: Json } = {},
): Json {
  return {
    event_id: `evt_${token}`,
    event_type: options.eventType ?? 'form_response',
    form_response: {
      form_id: options.formId ?? FORM_ID,
      token,
      landed_at: '2026-07-01T09:58:00Z',
      submitted_at: options.submittedAt ?? '2026-07-01T09:59:30Z',
      hidden: options.hidden ?? { user_id: 'ada-1' },
      definition: {
        id: options.formId ?? FORM_ID,
        title: 'Newsletter signup',
        fields: options.fields ?? [
          definitionField('name', 'short_text'),
          definitionField('email', 'email'),
          definitionField('consent_newsletter', 'yes_no'),
          definitionField('consent_offers', 'legal'),
        ],
      },
      answers: options.answers ?? [
        { type: 'text', text: 'Ada', field: field('name', 'short_text') },
        emailAnswer('ada@example.com'),
        yesNo('consent_newsletter', true),
        yesNo('consent_offers', false, 'legal'),
      ],
    },
  };
}

/**
 * Spec: What the service does 3 (a hosted form platform's signed webhook), Flow (capturable in own
 * form only if…), Other rules (capture refusals by name), receipt extensions collection_channel
 * `form_platform_webhook` and collection_platform. Issue 6 item 3.
 */
describe('hosted form platform integrations (Typeform signed webhook intake)', () => {
  const clock = new FakeClock('2026-07-01T10:00:00.000Z');
  const harness = new RecordsHarness(clock);
  let url: string;
  let app: TestApp;
  let other: TestApp;
  let flowId: string;
  let db: DataSource;

  const mapping = (overrides: Json = {}): Json => ({
    platform: 'typeform',
    flow_id: flowId,
    form_id: FORM_ID,
    purposes: [
      { purpose: 'newsletter', field_ref: 'consent_newsletter', field_type: 'yes_no' },
      { purpose: 'offers', field_ref: 'consent_offers', field_type: 'legal' },
    ],
    subject: { email_field_ref: 'email', external_id_field_ref: 'user_id' },
    ...overrides,
  });
  const create = (json: Json, headers: Record<string, string> = auth(app.token)) =>
    http('POST', `${url}/api/v1/consent_records/form_integrations`, { headers, json });
  async function newIntegration(json: Json = mapping()): Promise<{ id: string; secret: string; webhook: string }> {
    const res = await create(json);
    expect(res.status).toBe(201);
    return {
      id: res.body.id as string,
      secret: res.body.signing_secret as string,
      webhook: `${url}/capture/v1/form_integrations/${res.body.id as string}/webhook`,
    };
  }
  /** Posts `raw` exactly as given, signed with `secret` unless a signature (or none) is passed. */
  const deliver = (webhook: string, raw: string, secret: string, signature: string | null = sign(secret, raw)) =>
    http('POST', webhook, {
      headers: {
        'content-type': 'application/json',
        'user-agent': 'Typeform Webhooks',
        ...(signature === null ? {} : { 'typeform-signature': signature }),
      },
      raw,
    });
  const records = async (): Promise<number> => (await db.query(`SELECT count(*)::int AS n FROM consent_records.records`))[0].n as number;

  beforeAll(async () => {
    await harness.start('form_integrations');
    url = harness.url;
    app = await harness.newApp('shop');
    other = await harness.newApp('other');
    flowId = await harness.flow(app.token);
    db = harness.running.app.get(DataSource);
  });
  afterAll(() => harness.close());

  it('records a signed Typeform response with its purposes, the form_platform_webhook channel and the platform', async () => {
    const res = await create(mapping());
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      object: 'form_integration',
      platform: 'typeform',
      flow_id: flowId,
      form_id: FORM_ID,
      subject: { email_field_ref: 'email', external_id_field_ref: 'user_id' },
    });
    const id = res.body.id as string;
    expect(id).toMatch(/^fint_us_[a-z2-7]{20}$/);
    expect(res.body.webhook_url).toBe(`https://us.example.test/capture/v1/form_integrations/${id}/webhook`);
    const secret = res.body.signing_secret as string;
    expect(secret).toMatch(/^fisec_[0-9A-Za-z]{43}$/);
    // Shown once: never readable again, and stored only encrypted.
    const read = await http('GET', `${url}/api/v1/consent_records/form_integrations/${id}`, { headers: auth(app.token) });
    expect(read.status).toBe(200);
    expect(read.body).not.toHaveProperty('signing_secret');
    const [row] = await db.query(`SELECT secret_enc FROM consent_records.form_integrations WHERE id = $1`, [id]);
    expect((row.secret_enc as Buffer).includes(Buffer.from(secret))).toBe(false);

    // Pretty-printed as sent: the signature covers these exact bytes, not a re-serialisation.
    const raw = JSON.stringify(typeformBody('resp-ada-1'), null, 2);
    const delivered = await deliver(`${url}/capture/v1/form_integrations/${id}/webhook`, raw, secret);
    expect(delivered.status).toBe(200);
    expect(delivered.body).toEqual({
      status: 'recorded',
      record_id: expect.stringMatching(/^crec_us_/),
      collection_channel: 'form_platform_webhook',
      collection_platform: 'typeform',
    });
    const recordId = delivered.body.record_id as string;

    const record = await http('GET', `${url}/api/v1/consent_records/${recordId}`, { headers: auth(app.token) });
    expect(record.body).toMatchObject({
      collection_channel: 'form_platform_webhook',
      flow_id: flowId,
      subject: { email: 'ada@example.com', external_id: 'ada-1' },
      captured_at: '2026-07-01T09:59:30.000Z',
      recorded_at: '2026-07-01T10:00:00.000Z',
      status: 'active',
    });
    expect((record.body.purposes as Json[]).map((p) => [p.purpose, p.status])).toEqual([
      ['newsletter', 'granted'],
      ['offers', 'declined'],
    ]);

    const event = await waitFor(() => harness.eventsOf('consent.recorded', (p) => p.recordId === recordId)[0]);
    expect(event).toMatchObject({
      collectionChannel: 'form_platform_webhook',
      collectionPlatform: 'typeform',
      subjectEmail: 'ada@example.com',
      subjectExternalId: 'ada-1',
      sendReceipt: true,
      outcomes: [
        { purpose: 'newsletter', decision: 'granted' },
        { purpose: 'offers', decision: 'declined' },
      ],
    });

    const intakes = await http('GET', `${url}/api/v1/consent_records/form_integrations/${id}/intakes`, { headers: auth(app.token) });
    expect(intakes.body).toEqual({
      data: [
        {
          object: 'form_intake',
          response_token: 'resp-ada-1',
          outcome: 'recorded',
          record_id: recordId,
          reason_code: null,
          detail: null,
          received_at: '2026-07-01T10:00:00.000Z',
        },
      ],
      has_more: false,
      next_cursor: null,
    });
  });

  it('answers a redelivered response 200 with the same record and creates nothing twice', async () => {
    const { secret, webhook } = await newIntegration();
    const raw = JSON.stringify(typeformBody('resp-redelivered'));
    const first = await deliver(webhook, raw, secret);
    expect(first.status).toBe(200);
    const before = await records();
    clock.advance(60_000);
    const again = await deliver(webhook, raw, secret);
    const concurrent = await Promise.all([deliver(webhook, raw, secret), deliver(webhook, raw, secret)]);
    for (const res of [again, ...concurrent]) {
      expect([res.status, res.body.record_id, res.headers.get('idempotent-replayed')]).toEqual([200, first.body.record_id, 'true']);
    }
    expect(await records()).toBe(before);
    await waitFor(() => harness.eventsOf('consent.recorded', (p) => p.recordId === first.body.record_id)[0]);
    expect(
      harness.eventsOf('consent.recorded', (p) => p.subjectExternalId === 'ada-1' && p.recordId === first.body.record_id),
    ).toHaveLength(1);
  });

  it('takes a single-choice question as a checkbox: chosen is granted, skipped is declined', async () => {
    const { secret, webhook } = await newIntegration(
      mapping({
        purposes: [
          { purpose: 'newsletter', field_ref: 'tick_newsletter', field_type: 'multiple_choice' },
          { purpose: 'offers', field_ref: 'tick_offers', field_type: 'multiple_choice' },
        ],
      }),
    );
    const single = (ref: string) =>
      definitionField(ref, 'multiple_choice', { choices: [{ id: `c_${ref}`, ref: `choice_${ref}`, label: 'Yes, send it to me' }] });
    const body = typeformBody('resp-choice', {
      fields: [definitionField('email', 'email'), single('tick_newsletter'), single('tick_offers')],
      answers: [
        emailAnswer('grace@example.com'),
        {
          type: 'choice',
          choice: { id: 'c_tick_newsletter', label: 'Yes, send it to me' },
          field: field('tick_newsletter', 'multiple_choice'),
        },
      ],
      hidden: {},
    });
    const res = await deliver(webhook, JSON.stringify(body), secret);
    expect(res.status).toBe(200);
    const record = await http('GET', `${url}/api/v1/consent_records/${res.body.record_id as string}`, { headers: auth(app.token) });
    expect(record.body.subject).toEqual({ email: 'grace@example.com', external_id: null });
    expect(record.body.decisions).toEqual({
      newsletter: { decision: 'granted', default_checked: false, mandatory: false },
      offers: { decision: 'declined', default_checked: false, mandatory: false },
    });
  });

  it('refuses unsigned, wrongly signed, malformed, oversized and unknown deliveries with 4xx and records nothing', async () => {
    const { id, secret, webhook } = await newIntegration();
    const other = await newIntegration();
    const raw = JSON.stringify(typeformBody('resp-attack'));
    const before = await records();
    const cases: Array<[Promise<Awaited<ReturnType<typeof deliver>>>, number, string]> = [
      [deliver(webhook, raw, secret, null), 401, 'form_signature_missing'],
      [deliver(webhook, raw, secret, ''), 401, 'form_signature_missing'],
      [deliver(webhook, raw, secret, sign(other.secret, raw)), 401, 'form_signature_invalid'],
      [deliver(webhook, raw.replace('ada@example.com', 'eve@example.com'), secret, sign(secret, raw)), 401, 'form_signature_invalid'],
      [deliver(webhook, raw, secret, `sha256=${createHmac('sha256', secret).update(raw).digest('hex')}`), 401, 'form_signature_invalid'],
      [deliver(webhook, raw, secret, sign(secret, raw).replace('sha256=', '')), 401, 'form_signature_invalid'],
      [deliver(webhook, '{"event_type": "form_response",', secret), 400, 'malformed_json'],
      [
        deliver(webhook, JSON.stringify({ event_type: 'form_response', form_response: { token: 'x' } }), secret),
        400,
        'form_payload_invalid',
      ],
      [deliver(webhook, JSON.stringify([1, 2]), secret), 400, 'form_payload_invalid'],
      [
        deliver(webhook, JSON.stringify({ ...typeformBody('resp-huge'), padding: 'x'.repeat(1_100_000) }), secret),
        413,
        'payload_too_large',
      ],
      [deliver(`${url}/capture/v1/form_integrations/fint_us_aaaaaaaaaaaaaaaaaaaa/webhook`, raw, secret), 404, 'form_integration_not_found'],
      [deliver(`${url}/capture/v1/form_integrations/not-an-id/webhook`, raw, secret), 404, 'form_integration_not_found'],
      [
        deliver(webhook, JSON.stringify(typeformBody('resp-partial', { eventType: 'form_response_partial' })), secret),
        422,
        'form_event_not_supported',
      ],
      [deliver(webhook, JSON.stringify(typeformBody('resp-other-form', { formId: 'Zz9Yy8' })), secret), 422, 'form_mismatch'],
      [
        deliver(webhook, JSON.stringify(typeformBody('resp-future', { submittedAt: '2026-07-01T10:30:00Z' })), secret),
        422,
        'captured_at_in_future',
      ],
    ];
    for (const [pending, status, reason] of cases) {
      const res = await pending;
      expect([res.status, res.body.reason_code]).toEqual([status, reason]);
    }
    const form = await http('POST', webhook, {
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'typeform-signature': sign(secret, 'a=1') },
      raw: 'a=1',
    });
    expect(form.status).toBeGreaterThanOrEqual(400);
    expect(form.status).toBeLessThan(500);
    expect(await records()).toBe(before);
    // Only signed deliveries are kept as refused intakes: nothing from the unsigned or forged ones.
    const intakes = await http('GET', `${url}/api/v1/consent_records/form_integrations/${id}/intakes?outcome=refused`, {
      headers: auth(app.token),
    });
    expect((intakes.body.data as Json[]).map((i) => [i.response_token, i.reason_code]).sort()).toEqual([
      ['resp-future', 'captured_at_in_future'],
      ['resp-other-form', 'form_mismatch'],
      ['resp-partial', 'form_event_not_supported'],
      ['x', 'form_payload_invalid'],
    ]);
  });

  it('refuses each mapping problem by name when the integration is created', async () => {
    const purposes = (...extra: Json[]): Json[] => [
      { purpose: 'newsletter', field_ref: 'consent_newsletter', field_type: 'yes_no' },
      { purpose: 'offers', field_ref: 'consent_offers', field_type: 'legal' },
      ...extra,
    ];
    const cases: Array<[Json[], string, string]> = [
      [purposes({ purpose: 'coupons', field_ref: 'consent_coupons', field_type: 'yes_no' }), 'purpose_not_in_flow', 'coupons'],
      [[{ purpose: 'newsletter', field_ref: 'consent_newsletter', field_type: 'yes_no' }], 'consent_purpose_missing', 'offers'],
      [
        [{ purpose: 'newsletter', field_ref: 'consent_newsletter', field_type: 'short_text' }, purposes()[1]!],
        'field_cannot_carry_decision',
        'newsletter',
      ],
      [
        [purposes()[0]!, { purpose: 'offers', field_ref: 'consent_offers', field_type: 'dropdown' }],
        'field_cannot_carry_decision',
        'offers',
      ],
      [
        [{ purpose: 'newsletter', field_ref: 'consent_newsletter', field_type: 'yes_no', required: true }, purposes()[1]!],
        'required_field_mapped_to_consent',
        'newsletter',
      ],
      [
        [purposes()[0]!, { purpose: 'offers', field_ref: 'consent_offers', field_type: 'legal', default_checked: true }],
        'consent_purpose_default_checked',
        'offers',
      ],
    ];
    for (const [mapped, reason, purpose] of cases) {
      const res = await create(mapping({ purposes: mapped }));
      expect([res.status, res.body.reason_code, (res.body.detail as Json).purpose]).toEqual([422, reason, purpose]);
    }
    // A required question on a contract purpose is fine: only consent cannot be a condition.
    expect(
      (await create(mapping({ purposes: purposes({ purpose: 'account', field_ref: 'terms', field_type: 'legal', required: true }) })))
        .status,
    ).toBe(201);
    expect(
      (await create(mapping({ purposes: purposes({ purpose: 'offers', field_ref: 'again', field_type: 'yes_no' }) }))).body.reason_code,
    ).toBe('validation_failed');
    expect(
      (await create(mapping({ purposes: purposes({ purpose: 'account', field_ref: 'consent_offers', field_type: 'yes_no' }) }))).body
        .reason_code,
    ).toBe('validation_failed');

    const draft = await harness.flow(app.token, { activate: false });
    expect((await create(mapping({ flow_id: draft }))).body.reason_code).toBe('flow_not_active');
    const noDuration = await harness.flow(app.token, { consentDuration: null });
    expect((await create(mapping({ flow_id: noDuration }))).body.reason_code).toBe('flow_not_capturable');
    expect((await create(mapping({ flow_id: await harness.flow(other.token) }))).body.reason_code).toBe('flow_not_found');
  });

  it('refuses each mapping problem by name again at intake, against the form as delivered, and keeps the refusal visible', async () => {
    const { id, secret, webhook } = await newIntegration(
      mapping({
        purposes: [
          { purpose: 'newsletter', field_ref: 'consent_newsletter', field_type: 'yes_no' },
          { purpose: 'offers', field_ref: 'consent_offers', field_type: 'multiple_choice' },
        ],
      }),
    );
    const fields = (offers: Json, newsletter: Json = definitionField('consent_newsletter', 'yes_no')): Json[] => [
      definitionField('email', 'email'),
      newsletter,
      offers,
    ];
    const answers = [emailAnswer('bob@example.com'), yesNo('consent_newsletter', true)];
    const choices = (n: number): Json => ({
      choices: Array.from({ length: n }, (_, i) => ({ id: `c${i}`, ref: `r${i}`, label: `Choice ${i}` })),
    });
    const cases: Array<[string, Json, string, string]> = [
      [
        'resp-many-choices',
        { fields: fields(definitionField('consent_offers', 'multiple_choice', choices(3))), answers },
        'field_cannot_carry_decision',
        'offers',
      ],
      [
        'resp-retyped',
        { fields: fields(definitionField('consent_offers', 'short_text')), answers },
        'field_cannot_carry_decision',
        'offers',
      ],
      [
        'resp-required',
        {
          fields: fields(
            definitionField('consent_offers', 'multiple_choice', choices(1)),
            definitionField('consent_newsletter', 'yes_no', { validations: { required: true } }),
          ),
          answers,
        },
        'required_field_mapped_to_consent',
        'newsletter',
      ],
      [
        'resp-field-gone',
        { fields: [definitionField('email', 'email'), definitionField('consent_newsletter', 'yes_no')], answers },
        'consent_purpose_missing',
        'offers',
      ],
    ];
    const before = await records();
    for (const [token, options, reason, purpose] of cases) {
      const res = await deliver(webhook, JSON.stringify(typeformBody(token, options)), secret);
      expect([res.status, res.body.reason_code, (res.body.detail as Json).purpose]).toEqual([422, reason, purpose]);
    }
    const anonymous = await deliver(
      webhook,
      JSON.stringify(
        typeformBody('resp-anonymous', {
          fields: fields(definitionField('consent_offers', 'multiple_choice', choices(1))),
          answers: [yesNo('consent_newsletter', true)],
          hidden: {},
        }),
      ),
      secret,
    );
    expect([anonymous.status, anonymous.body.reason_code]).toEqual([422, 'subject_reference_missing']);
    const badEmail = await deliver(
      webhook,
      JSON.stringify(typeformBody('resp-bad-email', { answers: [emailAnswer('not an email'), yesNo('consent_newsletter', true)] })),
      secret,
    );
    expect([badEmail.status, badEmail.body.reason_code]).toEqual([400, 'form_payload_invalid']);
    expect(await records()).toBe(before);

    const intakes = await http('GET', `${url}/api/v1/consent_records/form_integrations/${id}/intakes?outcome=refused&limit=2`, {
      headers: auth(app.token),
    });
    expect(intakes.body.has_more).toBe(true);
    const next = await http(
      'GET',
      `${url}/api/v1/consent_records/form_integrations/${id}/intakes?outcome=refused&limit=50&cursor=${intakes.body.next_cursor as string}`,
      { headers: auth(app.token) },
    );
    const all = [...(intakes.body.data as Json[]), ...(next.body.data as Json[])];
    expect(all.map((i) => i.reason_code).sort()).toEqual([
      'consent_purpose_missing',
      'field_cannot_carry_decision',
      'field_cannot_carry_decision',
      'form_payload_invalid',
      'required_field_mapped_to_consent',
      'subject_reference_missing',
    ]);
    expect(all.find((i) => i.response_token === 'resp-required')).toMatchObject({
      outcome: 'refused',
      record_id: null,
      detail: { purpose: 'newsletter', field_ref: 'consent_newsletter' },
    });

    // A refused response that is fixed and redelivered is recorded, and then listed as recorded.
    const fixed = await deliver(
      webhook,
      JSON.stringify(
        typeformBody('resp-retyped', { fields: fields(definitionField('consent_offers', 'multiple_choice', choices(1))), answers }),
      ),
      secret,
    );
    expect(fixed.status).toBe(200);
    const recorded = await http('GET', `${url}/api/v1/consent_records/form_integrations/${id}/intakes?outcome=recorded`, {
      headers: auth(app.token),
    });
    expect((recorded.body.data as Json[]).map((i) => [i.response_token, i.record_id])).toEqual([['resp-retyped', fixed.body.record_id]]);
  });

  it('refuses a purpose the flow no longer resolves after a new version is activated', async () => {
    const flow = await harness.flow(app.token);
    const { secret, webhook } = await newIntegration(mapping({ flow_id: flow }));
    const patched = await http('PATCH', `${url}/api/v1/flows/${flow}`, {
      headers: auth(app.token),
      json: { purposes: [{ key: 'newsletter', label: 'Newsletter' }] },
    });
    expect(patched.status).toBe(200);
    expect((await http('POST', `${url}/api/v1/flows/${flow}/activate`, { headers: auth(app.token) })).status).toBe(200);
    const res = await deliver(webhook, JSON.stringify(typeformBody('resp-after-change')), secret);
    expect([res.status, res.body.reason_code, (res.body.detail as Json).purpose]).toEqual([422, 'purpose_not_in_flow', 'offers']);
  });

  it('guards the management API: API token of the owning application only; strict bodies', async () => {
    const { id } = await newIntegration();
    const path = `${url}/api/v1/consent_records/form_integrations`;
    expect((await create(mapping(), {})).status).toBe(401);
    expect((await create(mapping(), auth('not-a-token'))).status).toBe(401);
    expect((await create(mapping(), { 'x-publishable-key': app.pk })).status).toBe(403);
    expect((await http('GET', path, { headers: { 'x-publishable-key': app.pk } })).status).toBe(403);
    expect((await http('GET', `${path}/${id}`)).status).toBe(401);
    expect((await http('DELETE', `${path}/${id}`, { headers: auth('not-a-token') })).status).toBe(401);
    for (const [method, suffix] of [
      ['GET', ''],
      ['GET', '/intakes'],
      ['DELETE', ''],
    ] as const) {
      const res = await http(method, `${path}/${id}${suffix}`, { headers: auth(other.token) });
      expect([res.status, res.body.reason_code]).toEqual([404, 'form_integration_not_found']);
    }
    expect(((await http('GET', path, { headers: auth(other.token) })).body.data as Json[]).length).toBe(0);
    const mine = await http('GET', `${path}?limit=1`, { headers: auth(app.token) });
    expect([mine.status, (mine.body.data as Json[]).length, mine.body.has_more]).toEqual([200, 1, true]);
    const page2 = await http('GET', `${path}?limit=1&cursor=${mine.body.next_cursor as string}`, { headers: auth(app.token) });
    expect((page2.body.data as Json[])[0]!.id).not.toBe((mine.body.data as Json[])[0]!.id);
    expect((await http('GET', `${path}?cursor=forged`, { headers: auth(app.token) })).body.reason_code).toBe('invalid_cursor');

    expect((await create(mapping({ platform: 'jotform' }))).body.reason_code).toBe('validation_failed');
    expect((await create(mapping({ colour: 'blue' }))).body.reason_code).toBe('invalid_request');
    expect((await create(mapping({ purposes: [] }))).body.reason_code).toBe('validation_failed');
    expect((await create(mapping({ subject: {} }))).body.reason_code).toBe('invalid_request');
    expect(
      (await create(mapping({ purposes: [{ purpose: 'newsletter', field_ref: 'a', field_type: 'yes_no', required: 'no' }] }))).body
        .reason_code,
    ).toBe('invalid_request');
    const malformed = await http('POST', path, { headers: { ...auth(app.token), 'content-type': 'application/json' }, raw: '{' });
    expect([malformed.status, malformed.body.reason_code]).toEqual([400, 'malformed_json']);
  });

  it('stops accepting deliveries once the integration is deleted (404, so the platform disables its webhook)', async () => {
    const { id, secret, webhook } = await newIntegration();
    const raw = JSON.stringify(typeformBody('resp-after-delete'));
    const res = await http('DELETE', `${url}/api/v1/consent_records/form_integrations/${id}`, { headers: auth(app.token) });
    expect(res.status).toBe(204);
    expect((await http('DELETE', `${url}/api/v1/consent_records/form_integrations/${id}`, { headers: auth(app.token) })).status).toBe(404);
    expect((await http('GET', `${url}/api/v1/consent_records/form_integrations/${id}`, { headers: auth(app.token) })).status).toBe(404);
    const late = await deliver(webhook, raw, secret);
    expect([late.status, late.body.reason_code]).toEqual([404, 'form_integration_not_found']);
  });
});
