import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateApplication, CreateApplicationCommand } from '@svc/decision-gateway';
import { http, waitFor } from '@svc/testing';
import { decodeJwt } from 'jose';
import type { Browser, BrowserContext, CDPSession, Page } from 'playwright-core';
import { launchChromium } from '../hosted-pages/support';
import { codeFor, mailsTo, startMailDev, type MailDev } from '../support/mail';
import { startRegions, type TestRegions } from '../support/regions';

const ROOT = join(__dirname, '..', '..', '..');
const CLI = join(ROOT, 'tools', 'svc-receipt', 'svc-receipt.js');

interface Hook {
  event: string;
  data: Record<string, unknown>;
}

function verifyOffline(args: string[]): Promise<{ code: number; stdout: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, 'verify-agreement', ...args], { cwd: ROOT }, (error, stdout) => {
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout });
    });
  });
}

/**
 * Issue 24 item 2: a signer who has a passkey signs with it. In headless Chromium with a CDP
 * virtual authenticator: the signing page asks for an assertion over the signature's challenge,
 * the server verifies it against the signer's registered credential and binds it into the
 * signature receipt, and the offline verifier checks it. A signer without a passkey signs on
 * their sign-in alone, and the receipt says so. The region's public origin is
 * http://localhost:<port> (WebAuthn refuses an IP address as the relying party).
 */
describe('Agree: the signer passkey assertion bound into the signature', () => {
  let mail: MailDev;
  let stack: TestRegions;
  let origin: string;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let cdp: CDPSession;
  let authenticatorId: string;
  let receiver: Server;
  let dir: string;
  let auth: Record<string, string>;
  const hooks: Hook[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'agree-passkey-'));
    receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        hooks.push(JSON.parse(Buffer.concat(chunks).toString('utf8')) as Hook);
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    mail = await startMailDev();
    stack = await startRegions('agree_passkey', {
      regions: ['us'],
      env: { SMTP_URL: mail.smtpUrl, MAIL_FROM: 'Sign-in <no-reply@example.test>' },
      publicHost: 'localhost',
    });
    origin = stack.url.us.replace('127.0.0.1', 'localhost');
    const app = await stack.process.us.app
      .get(CreateApplication)
      .execute(CreateApplicationCommand.create({ name: 'e2e-agree-passkey', environment: 'development' }));
    auth = { authorization: `Bearer ${app.apiToken}` };
    const port = (receiver.address() as AddressInfo).port;
    const sub = await http('POST', `${origin}/api/v1/applications/${app.application.id}/webhook_subscriptions`, {
      headers: auth,
      json: { url: `http://127.0.0.1:${port}/hooks`, events: ['signature.signed', 'agreement.activated'] },
    });
    expect(sub.status).toBe(201);
    writeFileSync(join(dir, 'us.jwks.json'), (await http('GET', `${origin}/.well-known/jwks.json`)).text);
    browser = await launchChromium();
    context = await browser.newContext({ locale: 'en-GB' });
    page = await context.newPage();
    cdp = await context.newCDPSession(page);
    await cdp.send('WebAuthn.enable');
    ({ authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: {
        protocol: 'ctap2',
        transport: 'internal',
        hasResidentKey: true,
        hasUserVerification: true,
        isUserVerified: true,
        automaticPresenceSimulation: true,
      },
    }));
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await stack?.close();
    await mail?.stop();
    receiver?.closeAllConnections();
    await new Promise<void>((resolve) => (receiver ? receiver.close(() => resolve()) : resolve()));
    rmSync(dir, { recursive: true, force: true });
  });

  /** Signs up by email code over HTTP (no passkey): the person id and their sign-in cookie. */
  async function signUp(email: string, name: string): Promise<{ personId: string; cookie: string }> {
    const start = await http('POST', `${origin}/people/email_codes`, {
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
    const verified = await http('POST', `${origin}/people/email_codes/verify`, { json: { challenge_id: start.body.challenge_id, code } });
    expect(verified.status).toBe(200);
    return {
      personId: (verified.body.person as { id: string }).id,
      cookie: (verified.headers.get('set-cookie') ?? '').split(';')[0] ?? '',
    };
  }

  function answer(decisionUrl: string, cookie: string, body: Record<string, unknown>) {
    const url = new URL(decisionUrl);
    return http('POST', `${url.origin}/api/v1/decisions/${url.pathname.split('/').pop() ?? ''}/transitions`, {
      headers: { cookie, origin: url.origin },
      json: body,
    });
  }

  it('binds the passkey signer assertion into the signature; the receipt verifies offline with it; a signer without a passkey signs on the sign-in', async () => {
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));

    // Katherine signs up in the browser and adds a passkey held by the virtual authenticator.
    await page.goto(`${origin}/people/sign-up`);
    await page.fill('#people-name-input', 'Katherine Johnson');
    await page.fill('#people-email-input', 'katherine@example.test');
    await page.selectOption('#people-country-input', 'US');
    await page.click('#people-email button[type=submit]');
    await page.waitForSelector('#people-code:not([hidden])');
    await page.fill('#people-code-input', await codeFor(mail, 'katherine@example.test', 1));
    await Promise.all([page.waitForURL(`${origin}/people/account`), page.click('#people-code button[type=submit]')]);
    await page.click('#people-add-passkey');
    await page.waitForSelector('#people-passkeys [data-remove-passkey]');
    const { credentials } = (await cdp.send('WebAuthn.getCredentials', { authenticatorId })) as {
      credentials: Array<{ credentialId: string; signCount: number }>;
    };
    expect(credentials).toHaveLength(1);
    const credentialId = Buffer.from(credentials[0]!.credentialId, 'base64').toString('base64url');
    const katherine = (await page.evaluate(async () => (await (await fetch('/people/me')).json()) as { person: { id: string } })).person.id;
    const katherineCookie = (await context.cookies(origin)).map((c) => `${c.name}=${c.value}`).join('; ');
    const dorothy = await signUp('dorothy@example.test', 'Dorothy Vaughan');

    const documentText = 'Katherine and Dorothy share the orbital calculations.\n';
    const created = await http('POST', `${origin}/api/v1/agreements`, {
      headers: auth,
      json: {
        title: 'Orbital calculations',
        document: { media_type: 'text/plain', content_base64: Buffer.from(documentText, 'utf8').toString('base64') },
        parties: [
          { person_id: katherine, role: 'author' },
          { person_id: dorothy.personId, role: 'reviewer' },
        ],
      },
    });
    expect(created.status).toBe(201);
    const agreement = created.body as { id: string; parties: Array<{ id: string; decision_url: string }> };
    const [katherineParty, dorothyParty] = agreement.parties as [
      { id: string; decision_url: string },
      { id: string; decision_url: string },
    ];
    const katherineUrl = katherineParty.decision_url.replace('127.0.0.1', 'localhost');

    // Signed in but without her passkey assertion, Katherine's signature is refused and nothing is recorded.
    const bare = await answer(katherineUrl, katherineCookie, { action: 'sign' });
    expect(bare.status).toBe(401);
    expect(bare.body).toMatchObject({
      reason_code: 'passkey_assertion_required',
      detail: { field: 'passkey_assertion', challenge: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) },
    });
    const forged = await answer(katherineUrl, katherineCookie, {
      action: 'sign',
      passkey_assertion: {
        id: credentialId,
        rawId: credentialId,
        type: 'public-key',
        response: { clientDataJSON: 'e30', authenticatorData: 'AAAA', signature: 'AAAA' },
      },
    });
    expect(forged.status).toBe(401);
    expect(forged.body).toMatchObject({ reason_code: 'passkey_assertion_invalid' });
    // Dorothy has no passkey: an assertion is not hers to give, and declining never asks for one.
    const notHers = await answer(dorothyParty.decision_url, dorothy.cookie, {
      action: 'decline',
      passkey_assertion: { id: credentialId, rawId: credentialId, type: 'public-key', response: {} },
    });
    expect(notHers.status).toBe(422);
    expect(notHers.body).toMatchObject({ reason_code: 'field_not_applicable', detail: { field: 'passkey_assertion' } });

    // On her signing page, Katherine signs: the page asks the authenticator for the assertion.
    await page.goto(katherineUrl);
    expect(await page.textContent('main')).toContain('orbital calculations');
    await page.click('#svc-action-sign');
    const token = new URL(katherineUrl).pathname.split('/').pop() ?? '';
    await waitFor(async () => (await http('GET', `${origin}/api/v1/decisions/${token}/state`)).body.status === 'signed', 20_000, 200);
    const after = (await cdp.send('WebAuthn.getCredentials', { authenticatorId })) as { credentials: Array<{ signCount: number }> };
    expect(after.credentials[0]!.signCount).toBeGreaterThan(credentials[0]!.signCount);

    // Dorothy, without a passkey, signs on her sign-in alone.
    const dorothySigned = await answer(dorothyParty.decision_url, dorothy.cookie, { action: 'sign' });
    expect(dorothySigned.status).toBe(200);

    const read = await http<{ status: string; parties: Array<{ receipt_jws: string }> }>(
      'GET',
      `${origin}/api/v1/agreements/${agreement.id}`,
      { headers: auth },
    );
    expect(read.body.status).toBe('active');
    const katherineClaims = decodeJwt(read.body.parties[0]!.receipt_jws);
    expect(katherineClaims).toMatchObject({
      signer: katherine,
      outcome: 'signed',
      signer_authentication: 'passkey',
      passkey_assertion: { credential_id: credentialId, public_key: { kty: expect.stringMatching(/^(OKP|EC)$/) }, user_verified: true },
    });
    const bound = katherineClaims.passkey_assertion as { challenge: string; client_data_json: string };
    const clientData = JSON.parse(Buffer.from(bound.client_data_json, 'base64url').toString('utf8')) as Record<string, unknown>;
    expect(clientData).toMatchObject({ type: 'webauthn.get', challenge: bound.challenge, origin });
    const dorothyClaims = decodeJwt(read.body.parties[1]!.receipt_jws);
    expect(dorothyClaims).toMatchObject({ signer: dorothy.personId, outcome: 'signed', signer_authentication: 'session' });
    expect(dorothyClaims.passkey_assertion).toBeUndefined();

    // The receipt verifies offline, the bound assertion included.
    const receipt = await http('GET', `${origin}/api/v1/agreements/${agreement.id}/receipt`, { headers: auth });
    const receiptPath = join(dir, 'receipt.json');
    const documentPath = join(dir, 'document.txt');
    writeFileSync(receiptPath, receipt.text);
    writeFileSync(documentPath, documentText);
    const verified = await verifyOffline([receiptPath, '--jwks', join(dir, 'us.jwks.json'), '--document', documentPath]);
    expect(verified.code).toBe(0);
    expect(JSON.parse(verified.stdout)).toMatchObject({ valid: true, status: 'active', signed: 2, passkeys: 1 });

    // Each signature fired its webhook with its receipt, and the agreement was activated once.
    await waitFor(
      () =>
        hooks.filter((h) => h.event === 'signature.signed' && h.data.agreement_id === agreement.id).length === 2 &&
        hooks.some((h) => h.event === 'agreement.activated' && h.data.agreement_id === agreement.id),
      20_000,
    );
    expect(
      hooks
        .filter((h) => h.event === 'signature.signed' && h.data.agreement_id === agreement.id)
        .map((h) => h.data.receipt_jws)
        .sort(),
    ).toEqual(read.body.parties.map((p) => p.receipt_jws).sort());
    expect(errors).toEqual([]);
  }, 120_000);
});
