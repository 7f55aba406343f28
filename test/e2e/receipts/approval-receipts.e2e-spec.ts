import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { BusConnection } from '@svc/bus';
import { ApprovalDecidedSchema, decodeSealedEvent, type ApprovalDecided } from '@svc/contracts';
import { CreateApplication, CreateApplicationCommand } from '@svc/decision-gateway';
import type { ReceiptDocument } from '@svc/receipts';
import { http, waitFor, type HttpResult } from '@svc/testing';
import { startRegions, type TestRegions } from '../support/regions';

const ROOT = resolve(__dirname, '../../..');

function runCli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(process.execPath, ['scripts/run-ts.js', 'tools/svc-receipt/cli.ts', ...args], { cwd: ROOT }, (error, stdout, stderr) => {
      done({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

/**
 * Spec: What the service does 4 ("every completed decision issues a receipt"), receipt endpoints.
 * A standalone approval decision, answered on the hosted decision page, has a signed
 * authorization record the application fetches and anyone verifies offline with the region's keys.
 */
describe('receipts of standalone approval decisions', () => {
  let stack: TestRegions;
  let us: string;
  let app: { id: string; token: string };
  let other: { id: string; token: string };
  let tmp: string;
  let jwksPath: string;
  const auth = (token: string) => ({ authorization: `Bearer ${token}` });
  /** Every approval outcome event published in the region. */
  const approvals: ApprovalDecided[] = [];

  async function createApp(name: string) {
    const created = await stack.process.us.app
      .get(CreateApplication)
      .execute(CreateApplicationCommand.create({ name, environment: 'development' }));
    return { id: created.application.id, token: created.apiToken };
  }

  /** Mints an approval for `principal`, opens its hosted page and answers it there; returns the session token. */
  async function decideOnPage(principal: string, action: 'approve' | 'deny' | 'counter'): Promise<string> {
    const minted = await http('POST', `${us}/api/v1/decisions`, {
      headers: auth(app.token),
      json: {
        kind: 'approval',
        principal_id: principal,
        trigger_type: 'value',
        reference: 'payout-77',
        proposal: { action: 'payments:transfer', bounds: { amount: '2500.00 EUR' } },
      },
    });
    expect(minted.status).toBe(201);
    const token = minted.body.session_token as string;
    const page = await http('GET', `${us}/decisions/${token}`);
    expect(page.status).toBe(200);
    // The page shows the proposal and drives the session through the session-token API it names.
    expect(page.text).toContain('<p>payments:transfer</p>');
    expect(page.text).toContain(`"api_base":"/api/v1/decisions/${token}"`);
    const state = await http('GET', `${us}/api/v1/decisions/${token}/state`);
    expect(state.body).toMatchObject({ kind: 'approval', status: 'pending' });
    const moved = await http('POST', `${us}/api/v1/decisions/${token}/transitions`, {
      json: action === 'counter' ? { action, counter_proposal: { amount: '2000.00 EUR' } } : { action },
    });
    expect(moved.status).toBe(200);
    return token;
  }

  const receipt = (id: string, query = '', token = app.token) =>
    http('GET', `${us}/api/v1/approval_receipts/${id}${query}`, { headers: auth(token) });
  const frozen = (id: string, query = ''): Promise<HttpResult> =>
    waitFor(async () => {
      const res = await receipt(id, query);
      return res.status === 200 ? res : undefined;
    });

  async function verifyOffline(text: string, name: string): Promise<number> {
    const path = join(tmp, `${name}.json`);
    writeFileSync(path, text);
    return (await runCli(['verify', path, '--jwks', jwksPath])).code;
  }

  beforeAll(async () => {
    stack = await startRegions('approval_receipts', { regions: ['us'] });
    us = stack.url.us;
    const bus = stack.process.us.app.get(BusConnection);
    const subscription = bus.nc.subscribe(`${stack.prefix}.us.evt.approval.>`);
    void (async () => {
      for await (const msg of subscription) approvals.push(decodeSealedEvent(ApprovalDecidedSchema, msg.data, bus.personalData));
    })();
    app = await createApp('Acme Payments');
    other = await createApp('Other Ltd');
    tmp = mkdtempSync(join(tmpdir(), 'approval-receipt-'));
    jwksPath = join(tmp, 'jwks.json');
    writeFileSync(jwksPath, (await http('GET', `${us}/.well-known/jwks.json`)).text);
  });
  afterAll(async () => {
    if (tmp) rmSync(tmp, { recursive: true, force: true });
    await stack?.close();
  });

  it('gives an approved decision a signed authorization record, verifiable offline, by session token or record id', async () => {
    const token = await decideOnPage('ops-approver', 'approve');
    const recordId = `apr_${createHash('sha256').update(token).digest('hex')}`;
    const signed = await frozen(token, '?flavor=signed');
    expect(signed.headers.get('x-svc-receipt-status')).toBe('approved');
    const body = signed.body as { record: ReceiptDocument; signature: { jws: string; jwks_uri: string } };
    expect(body.signature.jwks_uri).toBe(`${us}/.well-known/jwks.json`);
    const document = body.record;
    expect(document.record).toMatchObject({ record_id: recordId, record_type: 'authorization_record' });
    expect(document.record.pii_principal_id).toMatch(/^psn_/);
    expect(JSON.stringify(document)).not.toContain(token);
    expect(JSON.stringify(document)).not.toContain('ops-approver');
    expect(document.party_identification).toEqual([
      expect.objectContaining({ party_id: app.id, party_name: 'Acme Payments', party_role: 'controller' }),
    ]);
    expect(document.event).toEqual([
      expect.objectContaining({
        event_state: 'approval granted',
        approval_id: recordId,
        entity_id: document.record.pii_principal_id,
        event_type: 'explicit',
      }),
    ]);
    expect(await verifyOffline(signed.text, 'approved')).toBe(0);
    // The controller's name came with the event: the receipts service asked nobody for it.
    expect(approvals.find((e) => e.sessionToken === token)?.application).toMatchObject({ name: 'Acme Payments', jurisdiction: '' });
    expect(await verifyOffline(signed.text.replace('approval granted', 'approval denied'), 'tampered')).toBe(1);

    const byId = await receipt(recordId);
    expect(byId.status).toBe(200);
    expect((byId.body as unknown as ReceiptDocument).record.record_id).toBe(recordId);
    const strangers = await receipt(token, '', other.token);
    expect([strangers.status, strangers.body.reason_code]).toEqual([404, 'receipt_not_found']);
  });

  it('gives a denied decision a receipt stating the denial, and a countered one the counter', async () => {
    const denied = await frozen(await decideOnPage('ops-denier', 'deny'), '?flavor=signed');
    expect(denied.headers.get('x-svc-receipt-status')).toBe('denied');
    expect((denied.body as { record: ReceiptDocument }).record.event).toEqual([
      expect.objectContaining({ event_state: 'approval denied' }),
    ]);
    expect(await verifyOffline(denied.text, 'denied')).toBe(0);

    const countered = await frozen(await decideOnPage('ops-counter', 'counter'));
    expect(countered.headers.get('x-svc-receipt-status')).toBe('countered');
    expect((countered.body as unknown as ReceiptDocument).event).toEqual([expect.objectContaining({ event_state: 'approval countered' })]);
  });

  it('has no receipt while the decision is open, and refuses other flavors and ids like the other receipt routes', async () => {
    const minted = await http('POST', `${us}/api/v1/decisions`, {
      headers: auth(app.token),
      json: { kind: 'approval', principal_id: 'ops-open', trigger_type: 'value' },
    });
    const open = await receipt(minted.body.session_token as string);
    expect([open.status, open.body.reason_code]).toEqual([404, 'receipt_not_found']);
    const unknown = await receipt('not-a-token');
    expect([unknown.status, unknown.body.reason_code]).toEqual([404, 'receipt_not_found']);
    const flavor = await receipt(minted.body.session_token as string, '?flavor=pdf');
    expect([flavor.status, flavor.body.reason_code]).toEqual([400, 'unknown_flavor']);
  });
});
