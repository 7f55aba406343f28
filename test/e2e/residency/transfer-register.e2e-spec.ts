import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { EVIDENCE_PACKAGE_TYP, verifyEvidencePackage } from '@svc/audit-chain';
import { RpcClient } from '@svc/bus';
import { CreateApplication, CreateApplicationCommand } from '@svc/decision-gateway';
import type { SigningJwk } from '@svc/crypto';
import { FreezeReceipt } from '@svc/receipts';
import { consentInput } from '@svc/receipts/testing';
import { http } from '@svc/testing';
import { startRegions, type TestRegions } from '../support/regions';

const run = promisify(execFile);
const ROOT = join(__dirname, '..', '..', '..');

interface Transfer {
  id: string;
  to_country: string;
  lawful_basis: string;
  adequacy_verdict: string;
  audit_entry_id: string;
  data_categories: string[];
}

const crossing = (reference: string, overrides: Record<string, unknown> = {}): Record<string, unknown> => ({
  data_categories: ['contact_data', 'consent_records'],
  to_country: 'US',
  recipient: 'Support operations (us region)',
  purpose: 'answer a support request the person opened',
  lawful_basis: 'standard_contractual_clauses',
  transfer_case: 'support_operator',
  reference,
  ...overrides,
});

/**
 * Issue 18 items 3, 4 and 5: a crossing is written to the transfer register before it happens
 * (and appended to the audit chain), refused without a lawful basis; the residency posture comes
 * from the deployment's configuration; evidence packages are signed, verify offline with the CLI
 * and fail on any changed byte.
 */
describe('transfer register, residency posture and evidence packages (eu region)', () => {
  let stack: TestRegions;
  let eu: string;
  let token: string;
  let applicationId: string;
  let dir: string;
  const recordId = 'crec_eu_residencyregisteraaaaaaa';
  const auth = () => ({ authorization: `Bearer ${token}` });

  beforeAll(async () => {
    stack = await startRegions('xfer_register', {
      regions: ['eu'],
      env: { RESIDENCY_BACKUP_COUNTRY: 'DE', RESIDENCY_LOG_SINK_COUNTRY: 'US' },
    });
    eu = stack.url.eu;
    const created = await stack.process.eu.app
      .get(CreateApplication)
      .execute(CreateApplicationCommand.create({ name: 'register-app', environment: 'development' }));
    token = created.apiToken;
    applicationId = created.application.id;
    dir = await mkdtemp(join(tmpdir(), 'evidence-'));
    await stack.process.eu.app
      .get(FreezeReceipt)
      .execute(consentInput({ record_id: recordId, application_id: applicationId, processing: {} }), 'consent-records');
  });
  afterAll(async () => {
    await stack?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('refuses a crossing without a lawful basis (422 naming the field) and records nothing', async () => {
    const { lawful_basis: _omitted, ...withoutBasis } = crossing('no-basis');
    const res = await http('POST', `${eu}/api/v1/transfer_register`, { headers: auth(), json: withoutBasis });
    expect([res.status, res.body.reason_code, (res.body.detail as { field?: string }).field]).toEqual([
      422,
      'lawful_basis_required',
      'lawful_basis',
    ]);
    const derogation = await http('POST', `${eu}/api/v1/transfer_register`, {
      headers: auth(),
      json: crossing('no-article', { lawful_basis: 'derogation' }),
    });
    expect([derogation.status, (derogation.body.detail as { field?: string }).field]).toEqual([422, 'derogation_article']);
    const noAdequacy = await http('POST', `${eu}/api/v1/transfer_register`, {
      headers: auth(),
      json: crossing('cn', { to_country: 'CN', lawful_basis: 'adequacy_decision' }),
    });
    expect([noAdequacy.status, noAdequacy.body.reason_code, (noAdequacy.body.detail as { field?: string }).field]).toEqual([
      422,
      'lawful_basis_invalid',
      'lawful_basis',
    ]);
    const list = await http<{ data: unknown[] }>('GET', `${eu}/api/v1/transfer_register`, { headers: auth() });
    expect(list.body.data).toEqual([]);
  });

  it("a receipt states where it is stored (the region's country) and no processing location before any crossing", async () => {
    const receipt = await http<{ pii_processing: Record<string, unknown> }>('GET', `${eu}/api/v1/consent_receipts/${recordId}`, {
      headers: auth(),
    });
    expect(receipt.status).toBe(200);
    expect(receipt.body.pii_processing.storage_locations).toEqual(['DE']);
    expect(receipt.body.pii_processing).not.toHaveProperty('processing_locations');
    expect(receipt.body.pii_processing.jurisdiction).toBe('unspecified');
  });

  it('records a support operator crossing before it happens, with the adequacy verdict and its audit entry', async () => {
    const res = await http<Transfer>('POST', `${eu}/api/v1/transfer_register`, {
      headers: auth(),
      json: crossing('ticket-1', { record_ids: [recordId] }),
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      object: 'transfer',
      from_country: 'DE',
      to_country: 'US',
      lawful_basis: 'standard_contractual_clauses',
      adequacy_verdict: 'partial',
      adequacy_table_version: '2025-07-01',
    });
    const entry = await http<{ type: string; canonical: string }>('GET', `${eu}/api/v1/audit/entries/${res.body.audit_entry_id}`, {
      headers: auth(),
    });
    expect(entry.status).toBe(200);
    expect(entry.body.type).toBe('residency.transfer_recorded');
    expect(JSON.parse(entry.body.canonical).data).toMatchObject({
      transfer_id: res.body.id,
      to_country: 'US',
      lawful_basis: 'standard_contractual_clauses',
    });
    const again = await http<Transfer>('POST', `${eu}/api/v1/transfer_register`, {
      headers: auth(),
      json: crossing('ticket-1', { record_ids: [recordId] }),
    });
    expect(again.body.id).toBe(res.body.id);
    // The receipt whose data crossed now names the destination with its recorded basis.
    const receipt = await http<{ pii_processing: Record<string, unknown> }>('GET', `${eu}/api/v1/consent_receipts/${recordId}`, {
      headers: auth(),
    });
    expect(receipt.body.pii_processing.processing_locations).toEqual([
      { country: 'US', transfer_basis: 'standard_contractual_clauses', transfer_register_id: res.body.id },
    ]);
    expect(receipt.body.pii_processing.storage_locations).toEqual(['DE']);
  });

  it('records a crossing other services declare over the bus (residency.record_transfer)', async () => {
    const reply = await stack.process.eu.app.get(RpcClient).call('residency.record_transfer', {
      applicationId,
      dataCategories: ['delegation_grants'],
      toCountry: 'JP',
      recipient: 'ap region delegate service',
      purpose: 'a delegate in ap acts for the person',
      lawfulBasis: 'adequacy_decision',
      transferCase: 'delegate_in_other_region',
      reference: 'dlg-1',
    });
    expect(reply).toMatchObject({ adequacyVerdict: 'adequate', adequacyTableVersion: '2025-07-01' });
    await expect(
      stack.process.eu.app.get(RpcClient).call('residency.record_transfer', {
        applicationId,
        dataCategories: ['identifiers'],
        toCountry: 'BR',
        recipient: 'x',
        purpose: 'y',
        transferCase: 'dsar_export',
        reference: 'dsar-1',
      }),
    ).rejects.toMatchObject({ code: 'lawful_basis_required', detail: { field: 'lawful_basis' } });
  });

  it('filters and paginates with cursors', async () => {
    await http('POST', `${eu}/api/v1/transfer_register`, {
      headers: auth(),
      json: crossing('dsar-2', {
        transfer_case: 'dsar_export',
        to_country: 'BR',
        lawful_basis: 'derogation',
        derogation_article: '49(1)(a)',
      }),
    });
    const first = await http<{ data: Transfer[]; has_more: boolean; next_cursor: string }>(
      'GET',
      `${eu}/api/v1/transfer_register?limit=2`,
      { headers: auth() },
    );
    expect([first.body.data.length, first.body.has_more]).toEqual([2, true]);
    const second = await http<{ data: Transfer[]; has_more: boolean }>(
      'GET',
      `${eu}/api/v1/transfer_register?limit=2&cursor=${first.body.next_cursor}`,
      { headers: auth() },
    );
    expect([second.body.data.length, second.body.has_more]).toEqual([1, false]);
    const ids = [...first.body.data, ...second.body.data].map((t) => t.to_country);
    expect(ids).toEqual(['US', 'JP', 'BR']);
    const brazil = await http<{ data: Transfer[] }>('GET', `${eu}/api/v1/transfer_register?to_country=BR&lawful_basis=derogation`, {
      headers: auth(),
    });
    expect(brazil.body.data.map((t) => t.adequacy_verdict)).toEqual(['not_adequate']);
    const category = await http<{ data: Transfer[] }>('GET', `${eu}/api/v1/transfer_register?data_category=delegation_grants`, {
      headers: auth(),
    });
    expect(category.body.data.map((t) => t.to_country)).toEqual(['JP']);
    const bad = await http('GET', `${eu}/api/v1/transfer_register?cursor=nope`, { headers: auth() });
    expect([bad.status, (bad.body.detail as { field?: string }).field]).toEqual([400, 'cursor']);
  });

  it('states the posture from the configuration: verified database and bus, declared backups, a violated log sink', async () => {
    const res = await http<{
      country: string;
      components: Array<{ component: string; status: string; country: string | null; check: string }>;
      data: Array<{ data_category: string; storage_locations: string[]; processing_locations: string[]; status: string }>;
    }>('GET', `${eu}/api/v1/residency_posture`, { headers: auth() });
    expect(res.status).toBe(200);
    expect(res.body.country).toBe('DE');
    const byComponent = Object.fromEntries(res.body.components.map((c) => [c.component, [c.status, c.country]]));
    expect(byComponent).toEqual({
      database: ['verified', 'DE'],
      bus: ['verified', 'DE'],
      backups: ['declared', 'DE'],
      log_sink: ['violated', 'US'],
      telemetry: ['verified', 'DE'],
    });
    const contact = res.body.data.find((row) => row.data_category === 'contact_data');
    // Stored at home; processed where recorded crossings went (US by SCCs, BR by a derogation).
    expect(contact).toMatchObject({ storage_locations: ['DE'], processing_locations: ['BR', 'DE', 'US'], status: 'declared' });
    expect(res.body.data.find((row) => row.data_category === 'delegation_grants')).toMatchObject({ processing_locations: ['DE', 'JP'] });
    expect(res.body.data.find((row) => row.data_category === 'audit_entries')).toMatchObject({ processing_locations: ['DE'] });
  });

  it('signs an evidence package that verifies offline with the CLI, and fails on any changed byte', async () => {
    expect(EVIDENCE_PACKAGE_TYP).toBe('svc-evidence+jws');
    const period = { from: new Date(Date.now() - 3_600_000).toISOString(), to: new Date(Date.now() + 60_000).toISOString() };
    const res = await http<{ package: string; kid: string; content: { transfers: unknown[]; audit: { proofs: unknown[] } } }>(
      'POST',
      `${eu}/api/v1/transfer_register/evidence_package`,
      { headers: auth(), json: period },
    );
    expect(res.status).toBe(201);
    expect(res.body.content.transfers).toHaveLength(3);
    expect(res.body.content.audit.proofs).toHaveLength(3);
    // The region's published keys, fetched once beforehand: verification itself uses no network.
    const jwks = (await http<{ keys: SigningJwk[] }>('GET', `${eu}/.well-known/jwks.json`)).body;

    const outcome = await verifyEvidencePackage(res.body.package, { trustedJwks: jwks });
    expect(outcome).toMatchObject({ valid: true, kind: 'transfer_register', region: 'eu', transfers: 3, proofs_verified: 3, failures: [] });
    // Every single-byte change of the package fails verification.
    const jws = res.body.package;
    let accepted = 0;
    for (let i = 0; i < jws.length; i += 1) {
      const changed = jws.slice(0, i) + (jws[i] === 'A' ? 'B' : 'A') + jws.slice(i + 1);
      if ((await verifyEvidencePackage(changed, { trustedJwks: jwks })).valid) accepted += 1;
    }
    expect(accepted).toBe(0);

    const packageFile = join(dir, 'package.jws');
    const jwksFile = join(dir, 'jwks.json');
    await writeFile(packageFile, jws);
    await writeFile(jwksFile, JSON.stringify(jwks));
    const cli = ['scripts/run-ts.js', 'tools/svc-audit/cli.ts', 'verify-evidence', '--package', packageFile, '--jwks', jwksFile];
    const ok = await run(process.execPath, cli, { cwd: ROOT, timeout: 150_000 });
    expect(JSON.parse(ok.stdout)).toMatchObject({ valid: true, proofs_verified: 3 });
    const middle = Math.floor(jws.length / 2);
    await writeFile(packageFile, jws.slice(0, middle) + (jws[middle] === 'A' ? 'B' : 'A') + jws.slice(middle + 1));
    await expect(run(process.execPath, cli, { cwd: ROOT, timeout: 150_000 })).rejects.toMatchObject({ code: 1 });
  }, 300_000);

  it('signs a proof of residency holding the posture and the adequacy table version', async () => {
    const period = { from: new Date(Date.now() - 3_600_000).toISOString(), to: new Date(Date.now() + 60_000).toISOString() };
    const res = await http<{ package: string; content: { posture: { object: string }; adequacy_table: { version: string } } }>(
      'POST',
      `${eu}/api/v1/residency_posture/evidence_package`,
      { headers: auth(), json: period },
    );
    expect(res.status).toBe(201);
    expect(res.body.content.posture.object).toBe('residency_posture');
    expect(res.body.content.adequacy_table.version).toBe('2025-07-01');
    expect(await verifyEvidencePackage(res.body.package)).toMatchObject({
      valid: true,
      kind: 'residency_posture',
      key_source: 'embedded_jwks',
    });
    const reversed = await http('POST', `${eu}/api/v1/residency_posture/evidence_package`, {
      headers: auth(),
      json: { from: period.to, to: period.from },
    });
    expect([reversed.status, (reversed.body.detail as { field?: string }).field]).toEqual([400, 'to']);
  });
});
