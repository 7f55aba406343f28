import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { CreateApplication, CreateApplicationCommand } from '@svc/decision-gateway';
import { LOGGER } from '@svc/server';
import { createLogger, type Logger } from '@svc/telemetry';
import { http, waitFor, LoopbackReceiver } from '@svc/testing';
import { DataSource } from 'typeorm';
import { codeFor, startMailDev, type MailDev } from './support/mail';
import { startRegions, type TestRegions } from './support/regions';

type Json = Record<string, unknown>;

jest.setTimeout(120_000);

const EMAIL_PATTERN = /[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}/g;

/**
 * Operators read logs; people's data and credentials must not be in them. The region runs a story
 * with marker values — an application and its API token, a flow, a webhook with its secret, consent
 * records with an email and an external id, a decision session with its token and person, and
 * failing writes that reach Postgres carrying those values — while every log line (debug and up)
 * is captured; then no line may contain a marker, an email address or a serialised Buffer.
 */
describe('logs without secrets or personal data', () => {
  let mail: MailDev;
  let stack: TestRegions;
  let us: string;
  const lines: string[] = [];
  const receiver = new LoopbackReceiver();
  const unique = randomBytes(6).toString('hex');
  const email = `log.marker.${unique}@example.com`;
  const externalId = `log-ext-${unique}`;
  const principalId = `log-principal-${unique}`;
  const markers: Record<string, string> = { email, externalId, principalId };

  beforeAll(async () => {
    await receiver.start();
    const destination = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(
          ...chunk
            .toString('utf8')
            .split('\n')
            .filter((line) => line.length > 0),
        );
        done();
      },
    });
    const logger: Logger = createLogger({ service: 'log-scan', region: 'us', level: 'debug', destination });
    mail = await startMailDev();
    stack = await startRegions('log_scan', { regions: ['us'], logger, env: { SMTP_URL: mail.smtpUrl } });
    us = stack.url.us;
  });

  afterAll(async () => {
    await stack?.close();
    await receiver.close();
    await mail?.stop();
  });

  it('writes no marker value, email address or buffer bytes to any log line', async () => {
    const created = await stack.process.us.app
      .get(CreateApplication)
      .execute(CreateApplicationCommand.create({ name: `Log scan ${unique}`, environment: 'development' }));
    const app = { id: created.application.id, token: created.apiToken };
    markers.apiToken = created.apiToken;
    markers.publishableKey = created.publishableKey;
    const auth = { authorization: `Bearer ${app.token}` };

    const flow = await http('POST', `${us}/api/v1/flows`, {
      headers: auth,
      json: {
        name: 'Newsletter',
        locale: 'en',
        presentation: { title: 'Stay in touch', description: 'What we send' },
        purposes: [{ key: 'newsletter', label: 'Newsletter', description: 'A monthly letter' }],
        consent_duration: 'P1Y',
      },
    });
    expect(flow.status).toBe(201);
    const flowId = flow.body.id as string;
    expect((await http('POST', `${us}/api/v1/flows/${flowId}/activate`, { headers: auth })).status).toBe(200);

    const hook = await http('POST', `${us}/api/v1/applications/${app.id}/webhook_subscriptions`, {
      headers: auth,
      json: { url: receiver.url('/hook'), events: ['consent.granted'], signature_formats: ['svc', 'standard_webhooks'] },
    });
    expect(hook.status).toBe(201);
    markers.webhookSecret = hook.body.secret as string;

    const record = (subject: Json, key: string) =>
      http('POST', `${us}/api/v1/consent_records`, {
        headers: auth,
        json: {
          flow_id: flowId,
          subject,
          decisions: { newsletter: { decision: 'granted', default_checked: false, mandatory: false } },
          captured_at: new Date(Date.now() - 60_000).toISOString(),
          idempotency_key: key,
        },
      });
    const recorded = await record({ email, external_id: externalId }, `log-${unique}-1`);
    expect(recorded.status).toBe(201);

    const session = await http('POST', `${us}/api/v1/decisions`, {
      headers: auth,
      json: { kind: 'consent', flow_id: flowId, delivery_mode: 'redirect', principal_id: principalId },
    });
    expect(session.status).toBe(201);
    markers.sessionToken = session.body.session_token as string;
    for (const action of ['sign_in', 'start_checks', 'review_terms', 'complete']) {
      expect((await http('POST', `${us}/api/v1/decisions/${markers.sessionToken}/transitions`, { json: { action } })).status).toBe(200);
    }

    // A person signs up by email code (one wrong try first), links to the application and signs out.
    const personEmail = `log.person.${unique}@example.com`;
    markers.personEmail = personEmail;
    const started = await http('POST', `${us}/people/email_codes`, {
      json: { purpose: 'sign_up', email: personEmail, display_name: `Log Person ${unique}`, home_country: 'US' },
    });
    expect(started.status).toBe(202);
    markers.challengeId = started.body.challenge_id as string;
    const code = await codeFor(mail, personEmail, 1);
    const wrongCode = code === '000000' ? '111111' : '000000';
    expect(
      (await http('POST', `${us}/people/email_codes/verify`, { json: { challenge_id: markers.challengeId, code: wrongCode } })).status,
    ).toBe(401);
    const verified = await http('POST', `${us}/people/email_codes/verify`, { json: { challenge_id: markers.challengeId, code } });
    expect(verified.status).toBe(200);
    const cookie = (verified.headers.get('set-cookie') ?? '').split(';')[0]!;
    markers.cookie = cookie.split('=')[1]!;
    const personId = (verified.body.person as { id: string }).id;
    expect(
      (
        await http('POST', `${us}/api/v1/applications/${app.id}/person_links`, {
          headers: auth,
          json: { person_id: personId, subject: { email: personEmail } },
        })
      ).status,
    ).toBe(201);
    expect((await http('POST', `${us}/people/sign_out`, { headers: { cookie } })).status).toBe(204);
    // Six digits also occur inside timestamps; the code counts only as a number of its own.
    const codeAlone = new RegExp(`(?<![0-9])(${code}|${wrongCode})(?![0-9])`);

    // A write that fails inside Postgres with the person's values as bind parameters: this test's own
    // database refuses one external id, so the Record API's insert of it hits a check violation.
    const refusedExternalId = `${externalId}-refused`;
    await stack.process.us.app
      .get(DataSource)
      .query(
        `ALTER TABLE consent_records.records ADD CONSTRAINT log_scan_refused CHECK (subject_external_id IS DISTINCT FROM '${refusedExternalId}') NOT VALID`,
      );
    const refused = await record({ email, external_id: refusedExternalId }, `log-${unique}-2`);
    expect(refused.status).toBe(500);
    expect(refused.text).not.toContain(email);

    // A unique violation in Postgres whose bind parameters carry the markers, logged the way workers
    // log a failed write: the SQLSTATE stays, the values go.
    const subscriptionId = hook.body.id as string;
    const failed = await stack.process.us.app
      .get(DataSource)
      .query(
        `INSERT INTO webhooks.subscriptions (id, application_id, url, events, secret_enc, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, now(), now())`,
        [
          subscriptionId,
          app.id,
          `https://hooks.example.com/${email}/${externalId}`,
          ['consent.granted'],
          Buffer.from(markers.webhookSecret, 'utf8'),
        ],
      )
      .catch((error: unknown) => error);
    expect(failed).toMatchObject({ code: '23505' });
    stack.process.us.app.get<Logger>(LOGGER).error({ err: failed }, 'subscription write failed');

    await waitFor(() => receiver.on('/hook').find((r) => JSON.stringify(r.body).includes(email)));
    await waitFor(
      async () => (await http('GET', `${us}/api/v1/consent_receipts/${recorded.body.id as string}`, { headers: auth })).status === 200,
    );

    const parsed = lines.map((line) => JSON.parse(line) as Json);
    expect(parsed.filter((line) => line.msg === 'request').length).toBeGreaterThan(10);
    const requestFailure = parsed.find((line) => line.msg === 'request failed' && line.url === '/api/v1/consent_records')!;
    expect(requestFailure.err).toMatchObject({ code: '23514' });
    const workerFailure = parsed.find((line) => line.msg === 'subscription write failed')!;
    expect(workerFailure.err).toMatchObject({ code: '23505', type: 'QueryFailedError' });
    expect((workerFailure.err as Json).message).toContain('duplicate key value violates unique constraint');

    const occurrences = Object.entries(markers).flatMap(([name, value]) =>
      lines.filter((line) => line.includes(value)).map((line) => `${name} ×${line.split(value).length - 1}: ${line}`),
    );
    const emails = lines.flatMap((line) => line.match(EMAIL_PATTERN) ?? []);
    const buffers = lines.filter((line) => line.includes('"type":"Buffer"'));
    const codes = lines.filter((line) => codeAlone.test(line));
    expect({ occurrences, emails, buffers, codes }).toEqual({ occurrences: [], emails: [], buffers: [], codes: [] });
  });
});
