import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import canonicalize from 'canonicalize';
import { RpcClient } from '@svc/bus';
import { CreateApplication, CreateApplicationCommand } from '@svc/decision-gateway';
import { http } from '@svc/testing';
import { DataSource } from 'typeorm';
import { startRegions, type TestRegions } from '../support/regions';
import {
  AppendReceiptTransition,
  FreezeReceipt,
  RECEIPT_SCHEMA_FILE,
  RECEIPT_SCHEMA_ID_PATH,
  validateReceiptDocument,
  verifySignedReceipt,
  type ReceiptDocument,
} from '@svc/receipts';
import { anonymousConsentInput, authorityInput, consentInput, flipOneByte, naclVerify } from '@svc/receipts/testing';

const ROOT = resolve(__dirname, '../../..');
const canonical = (value: unknown): string => canonicalize(value) as string;

function runCli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(process.execPath, ['scripts/run-ts.js', 'tools/svc-receipt/cli.ts', ...args], { cwd: ROOT }, (error, stdout, stderr) => {
      done({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

/** Spec: receipt endpoints, Disclosure receipt, Other coded errors, Versioning 6. */
describe('receipts over HTTP', () => {
  let stack: TestRegions;
  let us: string;
  let app: { id: string; token: string; publishableKey: string };
  let other: { id: string; token: string; publishableKey: string };
  let unscoped: string;
  let tmp: string;
  const auth = (token: string) => ({ authorization: `Bearer ${token}` });
  const ids = {
    consent: 'crec_us_e2econsentaaaaaaaaaa',
    anonymous: 'crec_us_e2eanonymousaaaaaaaa',
    authority: 'auth_us_e2eauthorityaaaaaaa',
    pureAuthority: 'auth_us_e2epureauthorityaaa',
    otherConsent: 'crec_us_e2eotherappaaaaaaaaa',
  };

  async function createApp(name: string) {
    const created = await stack.process.us.app
      .get(CreateApplication)
      .execute(CreateApplicationCommand.create({ name, environment: 'development' }));
    return { id: created.application.id, token: created.apiToken, publishableKey: created.publishableKey };
  }

  async function createActiveFlow(token: string): Promise<string> {
    const created = await http('POST', `${us}/api/v1/flows`, {
      headers: auth(token),
      json: {
        name: 'Agent disclosure',
        locale: 'en-GB',
        presentation: { title: 'Our assistant is an AI', description: 'You are talking to an automated agent.' },
        policy_url: 'https://acme.example/privacy',
        purposes: [
          { key: 'support', label: 'Customer support', description: 'Answer your questions', mechanism: 'contract', required: true },
        ],
        consent_duration: 'P1Y',
      },
    });
    expect(created.status).toBe(201);
    const flowId = created.body.id as string;
    const activated = await http('POST', `${us}/api/v1/flows/${flowId}/activate`, { headers: auth(token), json: {} });
    expect(activated.status).toBeLessThan(300);
    return flowId;
  }

  beforeAll(async () => {
    stack = await startRegions('receipts', { regions: ['us'] });
    us = stack.url.us;
    app = await createApp('Acme Ltd');
    other = await createApp('Other Ltd');
    const issued = await http('POST', `${us}/api/v1/applications/${app.id}/api_tokens`, {
      headers: auth(app.token),
      json: { name: 'no scopes', scopes: [] },
    });
    expect(issued.status).toBe(201);
    unscoped = (issued.body.api_token as { token: string }).token;
    const freeze = stack.process.us.app.get(FreezeReceipt);
    await freeze.execute(
      consentInput({ record_id: ids.consent, application_id: app.id, given_at: new Date(Date.now() - 86_400_000).toISOString() }),
      'consent-records',
    );
    await freeze.execute(anonymousConsentInput({ record_id: ids.anonymous, application_id: app.id }), 'consent-records');
    await freeze.execute(
      authorityInput({ record_id: ids.authority, application_id: app.id, valid_until: '2099-01-01T00:00:00Z' }),
      'oap-authorizer',
    );
    await freeze.execute(
      authorityInput({ record_id: ids.pureAuthority, application_id: app.id, purposes: [], valid_until: '2026-02-01T00:00:00Z' }),
      'oap-authorizer',
    );
    await freeze.execute(consentInput({ record_id: ids.otherConsent, application_id: other.id }), 'consent-records');
    tmp = mkdtempSync(join(tmpdir(), 'svc-receipt-'));
  });
  afterAll(async () => {
    rmSync(tmp, { recursive: true, force: true });
    await stack?.close();
  });

  describe('published documents', () => {
    it('serves the JWKS anonymously: the region key, public members only', async () => {
      const res = await http('GET', `${us}/.well-known/jwks.json`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^application\/jwk-set\+json/);
      expect(res.body).toEqual({
        keys: [{ kty: 'OKP', crv: 'Ed25519', x: expect.any(String), kid: 'oap-us-v1', alg: 'EdDSA', use: 'sig' }],
      });
    });

    it.each([['/schemas/receipt/v2/record.json'], [RECEIPT_SCHEMA_ID_PATH]])('serves the schema byte-verbatim at %s', async (path) => {
      const response = await fetch(`${us}${path}`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('application/schema+json');
      expect(Buffer.from(await response.arrayBuffer()).equals(readFileSync(RECEIPT_SCHEMA_FILE))).toBe(true);
      const etag = response.headers.get('etag');
      expect(etag).toMatch(/^"[0-9a-f]{64}"$/);
      const again = await fetch(`${us}${path}`, { headers: { 'if-none-match': etag! } });
      expect(again.status).toBe(304);
    });
  });

  describe('GET /api/v1/consent_receipts/:record_id', () => {
    const get = (id: string, token = app.token, query = '') =>
      http('GET', `${us}/api/v1/consent_receipts/${id}${query}`, { headers: auth(token) });

    it.each([
      ['identified', 'consent'],
      ['anonymous', 'anonymous'],
    ] as const)('canonical (default): the %s record as RFC 8785 bytes, schema-valid', async (_name, key) => {
      const res = await get(ids[key]);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(res.headers.get('x-svc-receipt-status')).toBe('active');
      expect(res.text).toBe(canonical(res.body));
      expect(validateReceiptDocument(res.body)).toEqual({ valid: true });
      const explicit = await get(ids[key], app.token, '?flavor=canonical');
      expect(explicit.text).toBe(res.text);
    });

    it('dpv: JSON-LD bound to the canonical document', async () => {
      const res = await get(ids.consent, app.token, '?flavor=dpv');
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/ld+json; charset=utf-8');
      expect(res.body).toMatchObject({
        '@type': 'dpv:ConsentRecord',
        'dct:conformsTo': 'ISO/IEC TS 27560:2023',
        'dpv:hasConsentStatus': { '@id': 'dpv:ConsentGiven' },
      });
      expect(validateReceiptDocument(res.body.record)).toEqual({ valid: true });
    });

    it('signed: verifies offline with the CLI and tweetnacl against the served JWKS; one flipped byte fails both', async () => {
      const res = await get(ids.anonymous, app.token, '?flavor=signed');
      expect(res.status).toBe(200);
      const signed = res.body as { record: ReceiptDocument; signature: { jws: string; jwks_uri: string } };
      expect(validateReceiptDocument(signed.record)).toEqual({ valid: true });
      expect(signed.signature.jwks_uri).toBe(`${us}/.well-known/jwks.json`);
      const jwks = (await http('GET', `${us}/.well-known/jwks.json`)).body as { keys: Array<Record<string, string>> };
      const receiptPath = join(tmp, 'receipt.json');
      const jwksPath = join(tmp, 'jwks.json');
      writeFileSync(receiptPath, res.text);
      writeFileSync(jwksPath, JSON.stringify(jwks));
      expect(naclVerify(res.text, jwks, canonical)).toBe(true);
      const valid = await runCli(['verify', receiptPath, '--jwks', jwksPath]);
      expect(valid.code).toBe(0);
      expect(JSON.parse(valid.stdout)).toEqual({ valid: true, record_type: 'consent_record', record_id: ids.anonymous, kid: 'oap-us-v1' });

      const tampered = flipOneByte(res.text, `"record_id":"${ids.anonymous.slice(0, 10)}`);
      writeFileSync(receiptPath, tampered);
      expect(naclVerify(tampered, jwks, canonical)).toBe(false);
      const invalid = await runCli(['verify', receiptPath, '--jwks', jwksPath]);
      expect(invalid.code).toBe(1);
      expect(invalid.stderr).toContain('bad_signature');
      // Two CLI runs, each booting TypeScript through SWC: allow them a minute.
    }, 60_000);

    it('status follows appended transitions; the frozen part is unchanged', async () => {
      const before = await get(ids.consent);
      await stack.process.us.app.get(AppendReceiptTransition).execute(app.id, ids.consent, {
        type: 'consent_withdrawn',
        at: new Date(Date.now() - 1000).toISOString(),
        purpose_id: 'marketing',
        channel: 'receipt_link',
      });
      const after = await get(ids.consent);
      expect(after.headers.get('x-svc-receipt-status')).toBe('partially_withdrawn');
      const events = (after.body as unknown as ReceiptDocument).event;
      expect(events.at(-1)).toMatchObject({ event_state: 'consent withdrawn', purpose_id: 'marketing', event_channel: 'receipt_link' });
      expect(events[0]).toEqual((before.body as unknown as ReceiptDocument).event[0]);
      expect(validateReceiptDocument(after.body)).toEqual({ valid: true });
    });

    it("answers 404 receipt_not_found for another application's receipt, an unknown id, a malformed id and an authorization record", async () => {
      for (const id of [ids.otherConsent, 'crec_us_doesnotexistaaaaaaaa', 'bad%20id', 'x'.repeat(100), ids.authority]) {
        const res = await get(id);
        expect(res.status).toBe(404);
        expect(res.body).toEqual({
          message: 'Receipt not found',
          reason_code: 'receipt_not_found',
          detail: { record_id: expect.any(String) },
        });
      }
    });

    it("answers an over-long id (beyond the router's 100-character parameter limit) with a 4xx, never 5xx", async () => {
      const res = await get('x'.repeat(600));
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
    });

    it('answers 400 unknown_flavor, 400 for an unknown query parameter or a repeated flavor, 401 without a token', async () => {
      const unknown = await get(ids.consent, app.token, '?flavor=xml');
      expect(unknown.status).toBe(400);
      expect(unknown.body.reason_code).toBe('unknown_flavor');
      expect((await get(ids.consent, app.token, '?format=json')).body.reason_code).toBe('invalid_request');
      expect((await get(ids.consent, app.token, '?flavor=dpv&flavor=signed')).status).toBe(400);
      const anonymousCall = await http('GET', `${us}/api/v1/consent_receipts/${ids.consent}`);
      expect(anonymousCall.status).toBe(401);
      expect((await get(ids.consent, 'not-a-token')).body.reason_code).toBe('invalid_token');
      const publishable = await http('GET', `${us}/api/v1/consent_receipts/${ids.consent}`, {
        headers: { 'x-publishable-key': app.publishableKey },
      });
      expect(publishable.status).toBe(403);
      expect(publishable.body.reason_code).toBe('publishable_key_not_allowed');
    });
  });

  describe('GET /api/v1/authorization_receipts/:id (scope audit:verify)', () => {
    const get = (id: string, token = app.token, query = '') =>
      http('GET', `${us}/api/v1/authorization_receipts/${id}${query}`, { headers: auth(token) });

    it('serves canonical, dpv and signed flavors of an authorization record', async () => {
      const canonicalRes = await get(ids.authority);
      expect(canonicalRes.status).toBe(200);
      expect(validateReceiptDocument(canonicalRes.body)).toEqual({ valid: true });
      expect(canonicalRes.body).toMatchObject({
        record: { record_type: 'authorization_record', record_id: ids.authority },
        authority: { valid_until: '2099-01-01T00:00:00.000Z' },
      });
      expect(canonicalRes.headers.get('x-svc-receipt-status')).toBe('active');
      const dpv = await get(ids.authority, app.token, '?flavor=dpv');
      expect(dpv.status).toBe(200);
      expect(dpv.body['@type']).toBe('dpv:PersonalDataHandling');
      expect(validateReceiptDocument(dpv.body.record)).toEqual({ valid: true });
      const signed = await get(ids.authority, app.token, '?flavor=signed');
      const jwks = (await http('GET', `${us}/.well-known/jwks.json`)).text;
      await expect(verifySignedReceipt(signed.text, jwks)).resolves.toMatchObject({ ok: true, recordId: ids.authority });
    });

    it('a pure-authority record: dpv_unavailable (422), canonical and signed still served; expiry derived from valid_until', async () => {
      const dpv = await get(ids.pureAuthority, app.token, '?flavor=dpv');
      expect(dpv.status).toBe(422);
      expect(dpv.body.reason_code).toBe('dpv_unavailable');
      const res = await get(ids.pureAuthority);
      expect(res.headers.get('x-svc-receipt-status')).toBe('expired');
      expect((res.body as unknown as ReceiptDocument).event.at(-1)).toMatchObject({ event_state: 'authority expired' });
      expect(validateReceiptDocument(res.body)).toEqual({ valid: true });
      expect((await get(ids.pureAuthority, app.token, '?flavor=signed')).status).toBe(200);
    });

    it('answers 403 insufficient_scope to a token without audit:verify', async () => {
      const res = await get(ids.authority, unscoped);
      expect(res.status).toBe(403);
      expect(res.body).toEqual({
        message: expect.any(String),
        reason_code: 'insufficient_scope',
        detail: { required_scope: 'audit:verify' },
      });
    });

    it("answers 404 for another application's authority and for a consent record id, 400 for an unknown flavor", async () => {
      const foreign = await stack.process.us.app
        .get(FreezeReceipt)
        .execute(authorityInput({ record_id: 'auth_us_e2eforeignaaaaaaaaa', application_id: other.id }), 'oap-authorizer');
      expect(foreign.created).toBe(true);
      expect((await get('auth_us_e2eforeignaaaaaaaaa')).status).toBe(404);
      expect((await get(ids.consent)).status).toBe(404);
      expect((await get(ids.authority, app.token, '?flavor=pdf')).body.reason_code).toBe('unknown_flavor');
    });
  });

  describe('POST /api/v1/disclosure_receipts (scope disclosures:write)', () => {
    let flowId: string;
    const agentId = 'agent_us_abcdefghijklmnopqrst';
    const body = (overrides: Record<string, unknown> = {}) => ({
      flow_id: flowId,
      agent_id: agentId,
      disclosed_at: new Date(Date.now() - 60_000).toISOString(),
      locale: 'en-GB',
      ...overrides,
    });
    const post = (json: unknown, token = app.token) => http('POST', `${us}/api/v1/disclosure_receipts`, { headers: auth(token), json });

    beforeAll(async () => {
      flowId = await createActiveFlow(app.token);
    });

    it('records an operator-declared notice receipt (201), readable again as a consent receipt', async () => {
      const res = await post(body());
      expect(res.status).toBe(201);
      const receipt = res.body.disclosure_receipt as { record_id: string; status: string; provenance: string; receipt: ReceiptDocument };
      expect(receipt).toMatchObject({ record_type: 'notice_record', status: 'shown', provenance: 'operator_declared' });
      expect(receipt.record_id).toMatch(/^dscl_us_[a-z2-7]{20}$/);
      expect(validateReceiptDocument(receipt.receipt)).toEqual({ valid: true });
      expect(receipt.receipt.record).toMatchObject({ record_type: 'notice_record', anonymous: true });
      expect(receipt.receipt.extensions).toMatchObject({
        collection_channel: 'controller_attested',
        consent_flow_id: flowId,
        agent_disclosures: [
          {
            agent_id: agentId,
            flow_id: flowId,
            provenance: 'operator_declared',
            notice_hash: receipt.receipt.pii_processing.privacy_notice!.hash,
          },
        ],
      });
      expect(receipt.receipt.party_identification[0]).toMatchObject({ party_id: app.id, party_name: 'Acme Ltd', party_role: 'controller' });
      const read = await http('GET', `${us}/api/v1/consent_receipts/${receipt.record_id}`, { headers: auth(app.token) });
      expect(read.status).toBe(200);
      expect(read.body).toEqual(receipt.receipt);
      const signed = await http('GET', `${us}/api/v1/consent_receipts/${receipt.record_id}?flavor=signed`, { headers: auth(app.token) });
      await expect(verifySignedReceipt(signed.text, (await http('GET', `${us}/.well-known/jwks.json`)).text)).resolves.toMatchObject({
        ok: true,
      });
      const dpv = await http('GET', `${us}/api/v1/consent_receipts/${receipt.record_id}?flavor=dpv`, { headers: auth(app.token) });
      expect(dpv.status).toBe(200);
      expect(validateReceiptDocument(dpv.body.record)).toEqual({ valid: true });
      expect((await http('GET', `${us}/api/v1/consent_receipts/${receipt.record_id}`, { headers: auth(other.token) })).status).toBe(404);
    });

    it.each([
      ['a field claiming platform delivery', { provenance: 'platform_delivered' }],
      ['another unknown field', { delivered_by: 'platform' }],
    ])('refuses %s with 400 invalid_request naming it', async (_name, extra) => {
      const res = await post(body(extra));
      expect(res.status).toBe(400);
      expect(res.body.reason_code).toBe('invalid_request');
      expect((res.body.detail as { field: string }).field).toBe(Object.keys(extra)[0]);
    });

    it.each([
      ['a missing flow_id', { flow_id: undefined }, 400, 'invalid_request'],
      ['a number as locale', { locale: 42 }, 400, 'invalid_request'],
      ['a malformed agent id', { agent_id: 'bot-7' }, 422, 'validation_failed'],
      ['a local time without offset', { disclosed_at: '2026-01-01T10:00:00' }, 422, 'validation_failed'],
      ['a bad locale', { locale: 'English' }, 422, 'validation_failed'],
      ['a future disclosed_at', { disclosed_at: new Date(Date.now() + 3_600_000).toISOString() }, 422, 'disclosed_at_in_future'],
      ['an unknown flow', { flow_id: 'flw_us_abcdefghijklmnopqrst' }, 404, 'flow_not_found'],
    ])('refuses %s', async (_name, change, status, code) => {
      const res = await post(body(change));
      expect(res.status).toBe(status);
      expect(res.body.reason_code).toBe(code);
    });

    it("answers another application's flow as unknown (404) and a draft flow with 422 flow_not_active", async () => {
      const foreignFlow = await createActiveFlow(other.token);
      expect((await post(body({ flow_id: foreignFlow }))).body.reason_code).toBe('flow_not_found');
      const draft = await http('POST', `${us}/api/v1/flows`, {
        headers: auth(app.token),
        json: { name: 'Draft', locale: 'en', presentation: { title: 'Draft' }, purposes: [{ key: 'a', label: 'A' }] },
      });
      const res = await post(body({ flow_id: draft.body.id }));
      expect(res.status).toBe(422);
      expect(res.body.reason_code).toBe('flow_not_active');
    });

    it('refuses malformed JSON, an oversized body, a missing token and a token without disclosures:write', async () => {
      const malformed = await http('POST', `${us}/api/v1/disclosure_receipts`, {
        headers: { ...auth(app.token), 'content-type': 'application/json' },
        raw: '{"flow_id":',
      });
      expect(malformed.status).toBe(400);
      expect(malformed.body.reason_code).toBe('malformed_json');
      const oversized = await post({ ...body(), padding: 'x'.repeat(1_100_000) });
      expect(oversized.status).toBe(413);
      expect(oversized.body.reason_code).toBe('payload_too_large');
      expect((await http('POST', `${us}/api/v1/disclosure_receipts`, { json: body() })).status).toBe(401);
      const publishable = await http('POST', `${us}/api/v1/disclosure_receipts`, {
        headers: { 'x-publishable-key': app.publishableKey },
        json: body(),
      });
      expect(publishable.status).toBe(403);
      expect(publishable.body.reason_code).toBe('publishable_key_not_allowed');
      const noScope = await post(body(), unscoped);
      expect(noScope.status).toBe(403);
      expect(noScope.body).toMatchObject({ reason_code: 'insufficient_scope', detail: { required_scope: 'disclosures:write' } });
    });
  });

  describe('freezing over the bus (receipts.freeze, receipts.append_transition)', () => {
    it('freezes a receipt from JSON input and appends a transition; the HTTP view follows', async () => {
      const rpc = stack.process.us.app.get(RpcClient);
      const input = authorityInput({
        record_id: 'auth_us_e2erpcfrozenaaaaaaa',
        application_id: app.id,
        valid_until: '2099-01-01T00:00:00Z',
      });
      const frozen = await rpc.call('receipts.freeze', { source: 'oap-authorizer', inputJson: JSON.stringify(input) });
      expect(frozen).toMatchObject({ recordId: input.record_id, documentSha256: expect.stringMatching(/^[0-9a-f]{64}$/), created: true });
      const again = await rpc.call('receipts.freeze', { source: 'oap-authorizer', inputJson: JSON.stringify(input) });
      expect(again.created).toBe(false);
      const transition = { type: 'authority_revoked', at: new Date(Date.now() - 1000).toISOString(), channel: 'organisation' };
      const appended = await rpc.call('receipts.append_transition', {
        applicationId: app.id,
        recordId: input.record_id,
        transitionJson: JSON.stringify(transition),
        idempotencyKey: 'revoke-1',
      });
      expect(appended.appended).toBe(true);
      const replay = await rpc.call('receipts.append_transition', {
        applicationId: app.id,
        recordId: input.record_id,
        transitionJson: JSON.stringify(transition),
        idempotencyKey: 'revoke-1',
      });
      expect(replay.appended).toBe(false);
      const res = await http('GET', `${us}/api/v1/authorization_receipts/${input.record_id}`, { headers: auth(app.token) });
      expect(res.headers.get('x-svc-receipt-status')).toBe('revoked');
      expect((res.body as unknown as ReceiptDocument).event.map((e) => e.event_state)).toEqual(['authority granted', 'authority revoked']);
    });

    it.each([
      ['an unknown source', { source: 'webhooks', inputJson: '{}' }],
      ['input that is not JSON', { source: 'consent-records', inputJson: '{' }],
      ['an unknown kind', { source: 'consent-records', inputJson: '{"kind":"gdpr"}' }],
      ['a shape the builder cannot read', { source: 'consent-records', inputJson: '{"kind":"consent_record","record_id":"x"}' }],
    ])('refuses %s with receipt_input_invalid', async (_name, request) => {
      await expect(stack.process.us.app.get(RpcClient).call('receipts.freeze', request)).rejects.toMatchObject({
        code: 'receipt_input_invalid',
        kind: 'invalid',
      });
    });
  });

  describe('freezing (in-process API)', () => {
    it('is idempotent for the same input and refuses a different document under a frozen id (409)', async () => {
      const freeze = stack.process.us.app.get(FreezeReceipt);
      const input = anonymousConsentInput({ record_id: ids.anonymous, application_id: app.id });
      await expect(freeze.execute(input, 'consent-records')).resolves.toMatchObject({ recordId: ids.anonymous, created: false });
      await expect(freeze.execute({ ...input, given_at: '2026-01-02T00:00:00Z' }, 'consent-records')).rejects.toMatchObject({
        code: 'receipt_already_frozen',
        kind: 'conflict',
      });
      await expect(freeze.execute({ ...input, application_id: other.id }, 'consent-records')).rejects.toMatchObject({
        code: 'receipt_already_frozen',
      });
    });

    it('the database itself refuses to rewrite a frozen receipt', async () => {
      const dataSource = stack.process.us.app.get(DataSource);
      await expect(
        dataSource.query(`UPDATE receipts.frozen_receipts SET document = '{}' WHERE record_id = $1`, [ids.consent]),
      ).rejects.toThrow(/never rewritten/);
    });

    it('refuses transitions of the wrong kind or for a purpose that was not granted', async () => {
      const append = stack.process.us.app.get(AppendReceiptTransition);
      await expect(
        append.execute(app.id, ids.authority, { type: 'consent_withdrawn', at: new Date().toISOString() }),
      ).rejects.toMatchObject({ code: 'receipt_input_invalid' });
      await expect(
        append.execute(app.id, ids.consent, { type: 'consent_withdrawn', at: new Date().toISOString(), purpose_id: 'profiling' }),
      ).rejects.toMatchObject({ code: 'receipt_input_invalid', detail: { field: 'purpose_id' } });
      await expect(
        append.execute(other.id, ids.consent, { type: 'consent_withdrawn', at: new Date().toISOString() }),
      ).rejects.toMatchObject({ code: 'receipt_not_found' });
    });
  });
});
