import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateApplication, CreateApplicationCommand } from '@svc/decision-gateway';
import { http, waitFor } from '@svc/testing';
import { decodeJwt } from 'jose';
import { DataSource } from 'typeorm';
import { codeFor, mailsTo, startMailDev, type MailDev } from '../support/mail';
import { startRegions, type TestRegions } from '../support/regions';

const ROOT = join(__dirname, '..', '..', '..');
const CLI = join(ROOT, 'tools', 'svc-receipt', 'svc-receipt.js');

interface Person {
  personId: string;
  cookie: string;
}

interface Hook {
  event: string;
  data: Record<string, unknown>;
}

/** Runs the offline verifier as a user would; resolves its exit code and stdout. */
function verifyOffline(args: string[]): Promise<{ code: number; stdout: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, 'verify-agreement', ...args], { cwd: ROOT }, (error, stdout) => {
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout });
    });
  });
}

/** Issue 24: multi-party agreements signed by people of two regions, a majority quorum, receipts verified offline. */
describe('Agree: a three-party agreement signed across regions', () => {
  let stack: TestRegions;
  let mail: MailDev;
  let receiver: Server;
  let dir: string;
  const hooks: Hook[] = [];
  let auth: Record<string, string>;
  let alice: Person;
  let bob: Person;
  let carol: Person;

  async function signUp(base: string, email: string, name: string, homeCountry: string): Promise<Person> {
    const start = await http('POST', `${base}/people/email_codes`, {
      json: {
        purpose: 'sign_up',
        email,
        display_name: name,
        home_country: homeCountry,
        locale: 'en-US',
        time_zone: 'UTC',
        return_to: '/people/account',
      },
    });
    expect(start.status).toBe(202);
    const code = await codeFor(mail, email, (await mailsTo(mail, email)).length || 1);
    const verified = await http('POST', `${base}/people/email_codes/verify`, { json: { challenge_id: start.body.challenge_id, code } });
    expect(verified.status).toBe(200);
    return {
      personId: (verified.body.person as { id: string }).id,
      cookie: (verified.headers.get('set-cookie') ?? '').split(';')[0] ?? '',
    };
  }

  /** The signer's move on their signing page (the page's own call), signed in on their browser. */
  function answer(decisionUrl: string, person: Person | undefined, action: string, extra: Record<string, unknown> = {}) {
    const url = new URL(decisionUrl);
    const token = url.pathname.split('/').pop() ?? '';
    return http('POST', `${url.origin}/api/v1/decisions/${token}/transitions`, {
      headers: person ? { cookie: person.cookie, origin: url.origin } : { origin: url.origin },
      json: { action, ...extra },
    });
  }

  const documentText = 'The parties agree to share the garden shed on alternate weekends.\n';
  const documentBody = { media_type: 'text/plain', content_base64: Buffer.from(documentText, 'utf8').toString('base64') };

  async function createAgreement(path: string, parties: Array<{ person: Person; role: string }>, extra: Record<string, unknown> = {}) {
    const res = await http('POST', `${stack.url.us}/api/v1/${path}`, {
      headers: auth,
      json: {
        title: 'Shared garden shed',
        document: documentBody,
        parties: parties.map((p) => ({ person_id: p.person.personId, role: p.role })),
        ...extra,
      },
    });
    expect(res.status).toBe(201);
    return res.body as {
      id: string;
      status: string;
      parties: Array<{ id: string; person_id: string; decision_url: string; home_region: string }>;
    };
  }

  const agreementOf = async (id: string) =>
    (
      await http<{ status: string; parties: Array<{ outcome: string | null; receipt_jws: string | null }> }>(
        'GET',
        `${stack.url.us}/api/v1/agreements/${id}`,
        { headers: auth },
      )
    ).body;
  const hooksOf = (agreementId: string, event: string) =>
    hooks.filter(
      (h) => h.event === event && (h.data.agreement_id === agreementId || String(h.data.reference ?? '').startsWith(`${agreementId}/`)),
    );

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'agree-e2e-'));
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
    stack = await startRegions('agree', {
      regions: ['us', 'eu'],
      env: { SMTP_URL: mail.smtpUrl, MAIL_FROM: 'Sign-in <no-reply@example.test>' },
    });
    const app = await stack.process.us.app
      .get(CreateApplication)
      .execute(CreateApplicationCommand.create({ name: 'e2e-agree', environment: 'development' }));
    auth = { authorization: `Bearer ${app.apiToken}` };
    const port = (receiver.address() as AddressInfo).port;
    const events = [
      'signature.signed',
      'signature.declined',
      'signature.expired',
      'signature.countered',
      'agreement.activated',
      'agreement.declined',
      'agreement.expired',
      'agreement.withdrawn',
      'agreement.amended',
      'agreement.amendment_rejected',
    ];
    const sub = await http('POST', `${stack.url.us}/api/v1/applications/${app.application.id}/webhook_subscriptions`, {
      headers: auth,
      json: { url: `http://127.0.0.1:${port}/hooks`, events },
    });
    expect(sub.status).toBe(201);
    alice = await signUp(stack.url.us, 'alice@example.test', 'Alice', 'US');
    bob = await signUp(stack.url.eu, 'bob@example.test', 'Bob', 'DE');
    carol = await signUp(stack.url.us, 'carol@example.test', 'Carol', 'US');
    for (const region of ['us', 'eu'] as const)
      writeFileSync(join(dir, `${region}.jwks.json`), (await http('GET', `${stack.url[region]}/.well-known/jwks.json`)).text);
  }, 120_000);

  afterAll(async () => {
    await stack?.close();
    await mail?.stop();
    receiver?.closeAllConnections();
    await new Promise<void>((resolve) => (receiver ? receiver.close(() => resolve()) : resolve()));
    rmSync(dir, { recursive: true, force: true });
  });

  it('two signers in different regions make a majority agreement active exactly once; the third vote is refused; the receipt verifies offline and fails after a one-byte change', async () => {
    const agreement = await createAgreement(
      'multi_party_agreements',
      [
        { person: alice, role: 'owner' },
        { person: bob, role: 'neighbour' },
        { person: carol, role: 'witness' },
      ],
      { quorum: { type: 'majority' } },
    );
    expect(agreement).toMatchObject({ status: 'pending', quorum: { type: 'majority', required: 2 } });
    const [aliceParty, bobParty, carolParty] = agreement.parties as [
      (typeof agreement.parties)[0],
      (typeof agreement.parties)[0],
      (typeof agreement.parties)[0],
    ];
    expect(bobParty.home_region).toBe('eu');
    expect(bobParty.decision_url.startsWith(`${stack.url.eu}/decisions/`)).toBe(true);
    expect(aliceParty.decision_url.startsWith(`${stack.url.us}/decisions/`)).toBe(true);

    // The page shows the document to the signed-in signer; an answer needs the signer signed in as themselves.
    const page = await http('GET', aliceParty.decision_url, { headers: { cookie: alice.cookie } });
    expect(page.status).toBe(200);
    expect(page.text).toContain('alternate weekends');
    const anonymous = await answer(aliceParty.decision_url, undefined, 'sign');
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toMatchObject({ reason_code: 'sign_in_required' });
    const impostor = await answer(aliceParty.decision_url, carol, 'sign');
    expect(impostor.status).toBe(403);
    expect(impostor.body).toMatchObject({ reason_code: 'principal_mismatch' });

    // Alice (us) and Bob (eu, on his own region's page) sign at the same time.
    const [aliceSigned, bobSigned] = await Promise.all([
      answer(aliceParty.decision_url, alice, 'sign'),
      answer(bobParty.decision_url, bob, 'sign'),
    ]);
    expect(aliceSigned.status).toBe(200);
    expect(bobSigned.status).toBe(200);
    expect(aliceSigned.body).toMatchObject({ status: 'signed' });
    expect(bobSigned.body).toMatchObject({ status: 'signed' });
    const active = await agreementOf(agreement.id);
    expect(active).toMatchObject({ status: 'active', parties: [{ outcome: 'signed' }, { outcome: 'signed' }, { outcome: null }] });

    // Carol's late vote is refused, and nothing of it is recorded.
    const late = await answer(carolParty.decision_url, carol, 'sign');
    expect(late.status).toBe(409);
    expect(late.body).toMatchObject({ reason_code: 'agreement_decided', detail: { status: 'active' } });
    expect((await agreementOf(agreement.id)).parties[2]).toMatchObject({ outcome: null });

    // Bob's signature was made in eu with eu's key; its crossing is in eu's transfer register.
    const bobReceipt = decodeJwt(String(active.parties[1]!.receipt_jws));
    expect(bobReceipt).toMatchObject({ agreement_id: agreement.id, signer: bob.personId, outcome: 'signed', iss: stack.url.eu });
    const transfers: Array<{ transfer_case: string; to_country: string }> = await stack.process.eu.app
      .get(DataSource)
      .query(`SELECT transfer_case, to_country FROM residency.transfers WHERE reference = $1`, [
        `agreement-signature:${agreement.id}/${bobParty.id}:signed`,
      ]);
    expect(transfers).toEqual([{ transfer_case: 'cross_border_signing', to_country: 'US' }]);

    // Activated once; each signature fired its webhook carrying its receipt.
    await waitFor(
      () => hooksOf(agreement.id, 'signature.signed').length === 2 && hooksOf(agreement.id, 'agreement.activated').length === 1,
      20_000,
    );
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(hooksOf(agreement.id, 'agreement.activated')).toHaveLength(1);
    expect(
      hooksOf(agreement.id, 'signature.signed')
        .map((h) => String(h.data.receipt_jws))
        .sort(),
    ).toEqual(active.parties.flatMap((p) => (p.receipt_jws ? [p.receipt_jws] : [])).sort());

    // The receipt (all signatures) verifies offline against both regions' keys, and fails after a one-byte change.
    const receipt = await http('GET', `${stack.url.us}/api/v1/agreements/${agreement.id}/receipt`, { headers: auth });
    expect(receipt.status).toBe(200);
    expect(JSON.parse(receipt.text)).toMatchObject({
      object: 'agreement_receipt',
      agreement_id: agreement.id,
      status: 'active',
      signatures: [expect.any(String), expect.any(String)],
    });
    const receiptPath = join(dir, 'receipt.json');
    const documentPath = join(dir, 'document.txt');
    writeFileSync(receiptPath, receipt.text);
    writeFileSync(documentPath, documentText);
    const jwks = ['--jwks', join(dir, 'us.jwks.json'), '--jwks', join(dir, 'eu.jwks.json')];
    const valid = await verifyOffline([receiptPath, ...jwks, '--document', documentPath]);
    expect(valid.code).toBe(0);
    expect(JSON.parse(valid.stdout)).toMatchObject({ valid: true, agreement_id: agreement.id, status: 'active', signed: 2, required: 2 });
    // Without eu's keys, Bob's signature cannot be verified.
    expect((await verifyOffline([receiptPath, '--jwks', join(dir, 'us.jwks.json')])).code).not.toBe(0);
    const bytes = readFileSync(receiptPath);
    for (const at of [10, Math.floor(bytes.length / 2), bytes.length - 3]) {
      const tampered = Buffer.from(bytes);
      tampered[at] = tampered[at] === 0x41 ? 0x42 : 0x41;
      writeFileSync(receiptPath, tampered);
      const outcome = await verifyOffline([receiptPath, ...jwks]);
      expect(outcome.code).not.toBe(0);
      expect(JSON.parse(outcome.stdout)).toMatchObject({ valid: false });
    }
  }, 120_000);

  it('decides once under concurrent votes: of two signers racing for a one-signature threshold, one binds the agreement and the other is refused', async () => {
    const agreement = await createAgreement(
      'agreements',
      [
        { person: alice, role: 'party_a' },
        { person: carol, role: 'party_b' },
      ],
      { quorum: { type: 'threshold', threshold: 1 } },
    );
    const answers = await Promise.all(agreement.parties.map((party, i) => answer(party.decision_url, i === 0 ? alice : carol, 'sign')));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409]);
    expect(answers.find((a) => a.status === 409)?.body).toMatchObject({ reason_code: 'agreement_decided' });
    expect(await agreementOf(agreement.id)).toMatchObject({ status: 'active' });
    await waitFor(() => hooksOf(agreement.id, 'agreement.activated').length === 1, 20_000);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(hooksOf(agreement.id, 'agreement.activated')).toHaveLength(1);
    expect(hooksOf(agreement.id, 'signature.signed')).toHaveLength(1);
  }, 60_000);

  it('each signing outcome (declined, countered, expired in the signer’s region) fires its webhook with a receipt', async () => {
    const declined = await createAgreement('agreements', [{ person: alice, role: 'tenant' }]);
    const countered = await createAgreement('agreements', [{ person: carol, role: 'tenant' }]);
    const expiring = await createAgreement('agreements', [{ person: bob, role: 'tenant' }], { ttl_seconds: 30 });
    expect((await answer(declined.parties[0]!.decision_url, alice, 'decline')).status).toBe(200);
    const counter = await answer(countered.parties[0]!.decision_url, carol, 'counter', {
      counter_proposal: { change: 'Every weekend, not alternate ones' },
    });
    expect(counter.status).toBe(200);
    expect(counter.body).toMatchObject({ status: 'countered' });

    const expectations: Array<[{ id: string }, string, string, string]> = [
      [declined, 'signature.declined', 'agreement.declined', 'declined'],
      [countered, 'signature.countered', 'agreement.declined', 'countered'],
      [expiring, 'signature.expired', 'agreement.expired', 'expired'],
    ];
    for (const [agreement, signatureEvent, agreementEvent, outcome] of expectations) {
      const hook = await waitFor(() => hooksOf(agreement.id, signatureEvent)[0], 60_000, 250);
      // The agreement's own event is a delivery of its own and may arrive after the signature's.
      await waitFor(() => hooksOf(agreement.id, agreementEvent).length > 0, 20_000, 250);
      expect(hooksOf(agreement.id, agreementEvent)).toHaveLength(1);
      const claims = decodeJwt(String(hook.data.receipt_jws));
      expect(claims).toMatchObject({ agreement_id: agreement.id, outcome });
      if (outcome === 'countered') expect(claims.counter_proposal).toEqual({ change: 'Every weekend, not alternate ones' });
      const receipt = await http('GET', `${stack.url.us}/api/v1/agreements/${agreement.id}/receipt`, { headers: auth });
      const path = join(dir, `${agreement.id}.json`);
      writeFileSync(path, receipt.text);
      const verified = await verifyOffline([path, '--jwks', join(dir, 'us.jwks.json'), '--jwks', join(dir, 'eu.jwks.json')]);
      expect(verified.code).toBe(0);
      expect(JSON.parse(verified.stdout)).toMatchObject({ valid: true, answers: 1, signed: 0 });
    }
  }, 90_000);

  it('amends an active agreement: the parties vote across regions under its quorum, it is adopted once, a late vote is refused, and the receipt chain verifies offline', async () => {
    const agreement = await createAgreement(
      'multi_party_agreements',
      [
        { person: alice, role: 'owner' },
        { person: bob, role: 'neighbour' },
        { person: carol, role: 'witness' },
      ],
      { quorum: { type: 'majority' } },
    );
    const amendedText = 'The parties agree to share the garden shed every weekend.\n';
    const amendmentBody = { document: { media_type: 'text/plain', content_base64: Buffer.from(amendedText, 'utf8').toString('base64') } };
    // Only an active agreement is amended.
    const early = await http('POST', `${stack.url.us}/api/v1/multi_party_agreements/${agreement.id}/amendments`, {
      headers: auth,
      json: amendmentBody,
    });
    expect(early.status).toBe(409);
    expect(early.body).toMatchObject({ reason_code: 'agreement_not_active', detail: { status: 'pending' } });
    for (const [i, person] of [alice, bob].entries())
      expect((await answer(agreement.parties[i]!.decision_url, person, 'sign')).status).toBe(200);

    const proposed = await http<{
      id: string;
      status: string;
      number: number;
      previous_document_sha256: string;
      document: { sha256: string };
      parties: Array<{ party_id: string; decision_url: string }>;
    }>('POST', `${stack.url.us}/api/v1/multi_party_agreements/${agreement.id}/amendments`, { headers: auth, json: amendmentBody });
    expect(proposed.status).toBe(201);
    const amendment = proposed.body;
    expect(amendment).toMatchObject({ object: 'agreement_amendment', agreement_id: agreement.id, number: 1, status: 'pending' });
    expect(amendment.parties[1]!.decision_url.startsWith(`${stack.url.eu}/decisions/`)).toBe(true);
    const again = await http('POST', `${stack.url.us}/api/v1/agreements/${agreement.id}/amendments`, {
      headers: auth,
      json: amendmentBody,
    });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ reason_code: 'amendment_open', detail: { amendment_id: amendment.id } });
    // The voting page shows the amended document.
    expect((await http('GET', amendment.parties[0]!.decision_url, { headers: { cookie: alice.cookie } })).text).toContain('every weekend');

    // Alice (us) and Bob (eu) vote at the same time: adopted once; Carol's late vote is refused.
    const votes = await Promise.all([
      answer(amendment.parties[0]!.decision_url, alice, 'sign'),
      answer(amendment.parties[1]!.decision_url, bob, 'sign'),
    ]);
    expect(votes.map((v) => v.status)).toEqual([200, 200]);
    const late = await answer(amendment.parties[2]!.decision_url, carol, 'sign');
    expect(late.status).toBe(409);
    expect(late.body).toMatchObject({ reason_code: 'amendment_decided', detail: { status: 'adopted' } });
    const read = await http<{ status: string; current_document_sha256: string; document: { sha256: string }; amendments: number }>(
      'GET',
      `${stack.url.us}/api/v1/agreements/${agreement.id}`,
      { headers: auth },
    );
    expect(read.body).toMatchObject({
      status: 'active',
      current_document_sha256: amendment.document.sha256,
      document: { sha256: amendment.previous_document_sha256 },
      amendments: 1,
    });
    const listed = await http<{
      data: Array<{ id: string; status: string; parties: Array<{ outcome: string | null; receipt_jws: string | null }> }>;
    }>('GET', `${stack.url.us}/api/v1/agreements/${agreement.id}/amendments?limit=1`, { headers: auth });
    expect(listed.body.data).toMatchObject([
      { id: amendment.id, status: 'adopted', parties: [{ outcome: 'signed' }, { outcome: 'signed' }, { outcome: null }] },
    ]);
    expect(decodeJwt(String(listed.body.data[0]!.parties[1]!.receipt_jws))).toMatchObject({
      amendment_id: amendment.id,
      document_sha256: amendment.document.sha256,
      signer: bob.personId,
      iss: stack.url.eu,
    });

    // Each vote an event, the adoption exactly once.
    const amendedHooks = () => hooks.filter((h) => h.event === 'agreement.amended' && h.data.agreement_id === agreement.id);
    await waitFor(
      () =>
        amendedHooks().length === 1 &&
        hooks.filter((h) => h.event === 'signature.signed' && h.data.amendment_id === amendment.id).length === 2,
      20_000,
    );
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(amendedHooks()).toHaveLength(1);
    expect(amendedHooks()[0]!.data).toMatchObject({
      amendment_id: amendment.id,
      status: 'amended',
      document_sha256: amendment.document.sha256,
      previous_document_sha256: amendment.previous_document_sha256,
    });

    // The receipt shows the chain: the signatures over the original, then the amendment's votes.
    const receipt = await http('GET', `${stack.url.us}/api/v1/agreements/${agreement.id}/receipt`, { headers: auth });
    expect(JSON.parse(receipt.text)).toMatchObject({
      status: 'active',
      amendments: [{ amendment_id: amendment.id, number: 1, status: 'adopted', signatures: [expect.any(String), expect.any(String)] }],
    });
    const receiptPath = join(dir, 'amended.json');
    const documentPath = join(dir, 'amended.txt');
    writeFileSync(receiptPath, receipt.text);
    writeFileSync(documentPath, amendedText);
    const jwks = ['--jwks', join(dir, 'us.jwks.json'), '--jwks', join(dir, 'eu.jwks.json')];
    const valid = await verifyOffline([receiptPath, ...jwks, '--document', documentPath]);
    expect(valid.code).toBe(0);
    expect(JSON.parse(valid.stdout)).toMatchObject({ valid: true, amendments: 1, document_sha256: amendment.document.sha256 });
    const bytes = readFileSync(receiptPath);
    const tampered = Buffer.from(bytes);
    const at = bytes.indexOf('"amendments"') + 40;
    tampered[at] = tampered[at] === 0x41 ? 0x42 : 0x41;
    writeFileSync(receiptPath, tampered);
    expect((await verifyOffline([receiptPath, ...jwks])).code).not.toBe(0);
  }, 120_000);
});
