import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { verifyEvidencePackage } from '@svc/audit-chain';
import type { SigningJwk } from '@svc/crypto';
import { CreateApplication, CreateApplicationCommand } from '@svc/decision-gateway';
import { http, waitFor } from '@svc/testing';
import { startRegions, type TestRegions } from '../support/regions';
import { bearer, compliantFlow, draftFlow, recordConsent } from './support';

const run = promisify(execFile);
const ROOT = join(__dirname, '..', '..', '..');

interface Package {
  id: string;
  package: string;
  package_sha256: string;
  entries: number;
  checkpoint_sequence: number | null;
}

/**
 * Issue 18 item 7 (Comply: evidence packages): a signed bundle for an audit period — receipts,
 * withdrawals, audit inclusion proofs, checkpoints, key history — verifiable offline with
 * `svc-audit verify-evidence`; a one-byte change fails it.
 */
describe('Comply: evidence packages of an audit period (us region)', () => {
  let stack: TestRegions;
  let us: string;
  let token: string;
  let otherToken: string;
  let dir: string;
  const started = new Date(Date.now() - 60_000).toISOString();

  beforeAll(async () => {
    stack = await startRegions('comply_evidence', { regions: ['us'] });
    us = stack.url.us;
    const created = await stack.process.us.app
      .get(CreateApplication)
      .execute(CreateApplicationCommand.create({ name: 'evidence-app', environment: 'development' }));
    token = created.apiToken;
    otherToken = (
      await stack.process.us.app
        .get(CreateApplication)
        .execute(CreateApplicationCommand.create({ name: 'other-app', environment: 'development' }))
    ).apiToken;
    dir = await mkdtemp(join(tmpdir(), 'audit-evidence-'));
    // A governed change, a consent record and a withdrawal: each an audit entry of the application.
    expect((await http('PUT', `${us}/api/v1/modules/ccpa_cpra`, { headers: bearer(token), json: { enabled: true } })).status).toBe(200);
    const flowId = await draftFlow(us, token, compliantFlow());
    expect((await http('POST', `${us}/api/v1/flows/${flowId}/activate`, { headers: bearer(token) })).status).toBe(200);
    const recordId = await recordConsent(us, token, flowId, 'grace@example.com', { measurement: 'granted', service: 'granted' });
    expect(
      (
        await http('POST', `${us}/api/v1/consent_records/${recordId}/withdrawals`, {
          headers: bearer(token),
          json: { purpose: 'measurement' },
        })
      ).status,
    ).toBeLessThan(300);
    // The chain appends events asynchronously: wait for the withdrawal to be recorded.
    await waitFor(async () => {
      const entries = await http<{ data: Array<{ type: string }> }>('GET', `${us}/api/v1/audit/entries?limit=200`, {
        headers: bearer(token),
      });
      return entries.body.data.some((entry) => entry.type === 'consent.purpose_revoked') || undefined;
    }, 30_000);
  }, 120_000);
  afterAll(async () => {
    await stack?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('issues a package holding receipts, withdrawals, proofs, checkpoints and key history that verifies offline; any changed byte fails', async () => {
    const period = { from: started, to: new Date(Date.now() + 60_000).toISOString() };
    const res = await http<Package>('POST', `${us}/api/v1/evidence_packages`, { headers: bearer(token), json: period });
    expect(res.status).toBe(201);
    expect(res.body.entries).toBeGreaterThanOrEqual(3);
    expect(res.body.checkpoint_sequence).not.toBeNull();
    const content = JSON.parse(Buffer.from(res.body.package.split('.')[1]!, 'base64url').toString('utf8')) as {
      kind: string;
      receipts: Array<{ type: string }>;
      withdrawals: Array<{ type: string }>;
      other_entries: Array<{ type: string }>;
      key_history: Array<{ kid: string; status: string }>;
      checkpoints: unknown[];
    };
    expect(content.kind).toBe('audit_period');
    expect(content.receipts.map((r) => r.type)).toContain('consent.recorded');
    expect(content.withdrawals.map((w) => w.type)).toContain('consent.purpose_revoked');
    expect(content.other_entries.map((e) => e.type)).toEqual(expect.arrayContaining(['governance.change_applied', 'flow.activated']));
    expect(content.key_history).toEqual([expect.objectContaining({ kid: 'oap-us-v1', status: 'active' })]);
    expect(content.checkpoints.length).toBeGreaterThanOrEqual(1);

    const jwks = (await http<{ keys: SigningJwk[] }>('GET', `${us}/.well-known/jwks.json`)).body;
    const outcome = await verifyEvidencePackage(res.body.package, { trustedJwks: jwks });
    expect(outcome).toMatchObject({ valid: true, kind: 'audit_period', region: 'us', proofs_verified: res.body.entries, failures: [] });
    expect(outcome.receipts).toBeGreaterThanOrEqual(1);
    expect(outcome.withdrawals).toBeGreaterThanOrEqual(1);
    expect(outcome.checkpoints_verified).toBe(content.checkpoints.length);

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
    expect(JSON.parse(ok.stdout)).toMatchObject({ valid: true, kind: 'audit_period', proofs_verified: res.body.entries });
    const middle = Math.floor(jws.length / 2);
    await writeFile(packageFile, jws.slice(0, middle) + (jws[middle] === 'A' ? 'B' : 'A') + jws.slice(middle + 1));
    await expect(run(process.execPath, cli, { cwd: ROOT, timeout: 150_000 })).rejects.toMatchObject({ code: 1 });

    // The package is kept as issued: the same bytes come back; another application cannot see it.
    const again = await http<Package>('GET', `${us}/api/v1/evidence_packages/${res.body.id}`, { headers: bearer(token) });
    expect([again.body.package, again.body.package_sha256]).toEqual([jws, res.body.package_sha256]);
    expect((await http('GET', `${us}/api/v1/evidence_packages/${res.body.id}`, { headers: bearer(otherToken) })).status).toBe(404);
    const list = await http<{ data: Package[] }>('GET', `${us}/api/v1/evidence_packages`, { headers: bearer(token) });
    expect(list.body.data.map((p) => p.id)).toEqual([res.body.id]);
  }, 300_000);

  it('refuses a reversed or over-long period naming the field', async () => {
    const reversed = await http('POST', `${us}/api/v1/evidence_packages`, {
      headers: bearer(token),
      json: { from: '2026-02-01T00:00:00Z', to: '2026-01-01T00:00:00Z' },
    });
    expect([reversed.status, reversed.body.reason_code, (reversed.body.detail as { field: string }).field]).toEqual([
      400,
      'period_invalid',
      'to',
    ]);
    const long = await http('POST', `${us}/api/v1/evidence_packages`, {
      headers: bearer(token),
      json: { from: '2024-01-01T00:00:00Z', to: '2026-01-01T00:00:00Z' },
    });
    expect([long.status, (long.body.detail as { field: string }).field]).toEqual([400, 'to']);
  });
});
