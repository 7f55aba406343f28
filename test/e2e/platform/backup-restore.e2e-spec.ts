import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { AuditChain, parseWitnessKey } from '@svc/audit-chain';
import { CreateApplication, CreateApplicationCommand } from '@svc/decision-gateway';
import { verifyCosignature } from '@svc/merkle';
import { verifySignedReceipt } from '@svc/receipts';
import { startRegion } from '@svc/region-stack';
import type { RunningProcess } from '@svc/server';
import {
  LoopbackReceiver,
  createTestDatabase,
  deleteTestStreams,
  freePort,
  http,
  testEnv,
  testKeyEncryptionKey,
  uniqueBusPrefix,
  waitFor,
  type TestDatabase,
  startLoopbackWitness,
  type LoopbackWitness,
} from '@svc/testing';
import { DataSource } from 'typeorm';

const run = promisify(execFile);
const ROOT = resolve(__dirname, '../../..');
type Json = Record<string, unknown>;
const auth = (token: string) => ({ authorization: `Bearer ${token}` });

jest.setTimeout(240_000);

/**
 * Issue 20 item 8, the procedure of deploy/README.md "Backup and restore of a region": a region
 * writes consent records (receipts, audit entries, webhooks); it is stopped, its database dumped
 * with `pg_dump --format=custom` and restored with `pg_restore` into a new database; the region
 * starts on the restored database (same key-encryption key, same bus). Then the audit chain
 * verifies up to its last witnessed checkpoint (and the witness accepts the next checkpoint as a
 * consistent extension), receipts still verify byte for byte, and the outbox resumes: new records
 * reach the webhook subscriber exactly once, the old ones are never delivered again.
 */
describe('backup and restore of one region (pg_dump / pg_restore)', () => {
  const prefix = uniqueBusPrefix();
  const kek = testKeyEncryptionKey();
  const receiver = new LoopbackReceiver();
  const dumpDir = mkdtempSync(join(tmpdir(), 'svc-backup-'));
  let witness: LoopbackWitness;
  let source: TestDatabase;
  let restored: TestDatabase;
  let region: RunningProcess | undefined;
  let url: string;
  let port: number;
  let app: { id: string; token: string };
  let flowId: string;
  const recordIds: string[] = [];
  const receiptsBefore = new Map<string, string>();
  let witnessed: { sequence: number; treeSize: number; rootHash: string };

  async function start(database: TestDatabase): Promise<void> {
    region = await startRegion(
      testEnv({
        REGION: 'us',
        DATABASE_URL: database.url,
        BUS_PREFIX: prefix,
        HTTP_PORT: String(port),
        KEY_ENCRYPTION_KEY: kek,
        REGION_URLS: `us=http://127.0.0.1:${port}`,
        PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
        SERVICE_NAME: 'e2e-backup',
        AUDIT_WITNESS_URL: witness.url,
        AUDIT_WITNESS_KEY: witness.verifierKey,
      }),
    );
    url = `http://127.0.0.1:${port}`;
  }

  async function stop(): Promise<void> {
    await region?.close();
    region = undefined;
  }

  async function record(key: string): Promise<string> {
    const res = await http<Json>('POST', `${url}/api/v1/consent_records`, {
      headers: auth(app.token),
      json: {
        flow_id: flowId,
        subject: { external_id: key },
        decisions: { newsletter: { decision: 'granted', default_checked: false, mandatory: false } },
        captured_at: new Date(Date.now() - 60_000).toISOString(),
        idempotency_key: key,
      },
    });
    expect(res.status).toBe(201);
    recordIds.push(String(res.body.id));
    return String(res.body.id);
  }

  const deliveriesOf = (recordId: string) => receiver.received.filter((r) => (r.body.data as Json | undefined)?.record_id === recordId);

  /** Waits until the audit chain holds the `consent.recorded` entries of every record so far. */
  async function auditCaughtUp(): Promise<void> {
    const db = region?.app.get(DataSource);
    await waitFor(async () => {
      const rows: Array<{ n: string }> =
        (await db?.query(`SELECT count(*) AS n FROM audit.entries WHERE entry_type = 'consent.recorded'`)) ?? [];
      return Number(rows[0]?.n) >= recordIds.length;
    }, 30_000);
  }

  beforeAll(async () => {
    await receiver.start();
    witness = await startLoopbackWitness('witness.test/backup');
    port = await freePort();
    source = await createTestDatabase('backup_source');
    await start(source);
    const config = (await http<Json>('GET', `${url}/.well-known/witness-configuration`)).body;
    witness.trust(String((config.log_keys as Json[])[0]?.verifier_key));
    const created = await region!.app
      .get(CreateApplication)
      .execute(CreateApplicationCommand.create({ name: 'Backup', environment: 'development' }));
    app = { id: created.application.id, token: created.apiToken };
    const flow = await http<Json>('POST', `${url}/api/v1/flows`, {
      headers: auth(app.token),
      json: {
        name: 'Signup',
        locale: 'en-GB',
        presentation: { title: 'Stay in touch', description: 'Our newsletter' },
        policy_url: 'https://acme.example/privacy',
        purposes: [{ key: 'newsletter', label: 'Newsletter', description: 'A monthly letter' }],
        consent_duration: 'P1Y',
      },
    });
    expect(flow.status).toBe(201);
    flowId = String(flow.body.id);
    expect((await http('POST', `${url}/api/v1/flows/${flowId}/activate`, { headers: auth(app.token), json: {} })).status).toBeLessThan(300);
    const sub = await http<Json>('POST', `${url}/api/v1/applications/${app.id}/webhook_subscriptions`, {
      headers: auth(app.token),
      json: { url: receiver.url('/hook'), events: ['consent.granted'] },
    });
    expect(sub.status).toBe(201);
  });

  afterAll(async () => {
    await stop().catch(() => undefined);
    await source?.drop();
    await restored?.drop();
    await deleteTestStreams(prefix);
    await witness?.close();
    await receiver.close();
    rmSync(dumpDir, { recursive: true, force: true });
  });

  it('writes records, receipts, webhooks and a witnessed checkpoint on the source database', async () => {
    for (let i = 0; i < 6; i += 1) await record(`before-${i}`);
    for (const id of recordIds) await waitFor(() => deliveriesOf(id).length > 0, 30_000);
    await auditCaughtUp();
    const chain = region!.app.get(AuditChain);
    await chain.createCheckpoint.execute();
    await chain.submitToWitness?.execute();
    const latest = await chain.checkpoints.latest();
    expect(latest).toMatchObject({ witnessStatus: 'cosigned' });
    witnessed = { sequence: latest!.sequence, treeSize: latest!.treeSize, rootHash: latest!.rootHash };
    expect(witness.state.get(latest!.origin)?.size).toBe(witnessed.treeSize);
    // Two more records after the witnessed checkpoint: the dump holds entries no witness saw yet.
    await record('after-checkpoint-0');
    await record('after-checkpoint-1');
    for (const id of recordIds) await waitFor(() => deliveriesOf(id).length > 0, 30_000);
    await auditCaughtUp();
    for (const id of recordIds) {
      const res = await http('GET', `${url}/api/v1/consent_receipts/${id}?flavor=signed`, { headers: auth(app.token) });
      expect(res.status).toBe(200);
      receiptsBefore.set(id, res.text);
    }
  });

  it('dumps the stopped region with pg_dump and restores it with pg_restore into a new database', async () => {
    // The procedure stops the region first (graceful: outbox relayed, deliveries settled), so the
    // dump is a clean cut: nothing is in flight.
    await stop();
    const dump = join(dumpDir, 'us.dump');
    await run('pg_dump', ['--format=custom', '--no-owner', '--no-privileges', `--file=${dump}`, `--dbname=${source.url}`]);
    restored = await createTestDatabase('backup_restored');
    await run('pg_restore', ['--no-owner', '--no-privileges', '--exit-on-error', `--dbname=${restored.url}`, dump]);
    const count = async (db: TestDatabase, sql: string) => {
      const ds = new DataSource({ type: 'postgres', url: db.url, applicationName: 'test-backup-count' });
      await ds.initialize();
      try {
        return ((await ds.query(sql)) as Array<{ n: string }>)[0]?.n;
      } finally {
        await ds.destroy();
      }
    };
    for (const sql of ['SELECT count(*) AS n FROM audit.entries', 'SELECT count(*) AS n FROM audit.checkpoints']) {
      expect(await count(restored, sql)).toBe(await count(source, sql));
    }
  });

  it('starts the region on the restored database: the audit chain verifies against its last witnessed checkpoint', async () => {
    await start(restored);
    const verification = await http<Json>('GET', `${url}/api/v1/audit/verify`, { headers: auth(app.token) });
    expect(verification.body).toMatchObject({ valid: true, first_broken_index: null, invalid_checkpoints: [] });
    expect(Number(verification.body.verified_size)).toBeGreaterThan(witnessed.treeSize);
    const fromWitnessed = await http<Json>('GET', `${url}/api/v1/audit/verify?from_checkpoint=${witnessed.sequence}`, {
      headers: auth(app.token),
    });
    expect(fromWitnessed.body).toMatchObject({ valid: true, verified_from_index: witnessed.treeSize });
    const chain = region!.app.get(AuditChain);
    const cosigned = await chain.checkpoints.bySequence(witnessed.sequence);
    expect(cosigned).toMatchObject({ witnessStatus: 'cosigned', rootHash: witnessed.rootHash });
    expect(verifyCosignature(String(cosigned?.cosignedNote), parseWitnessKey(witness.verifierKey)).valid).toBe(true);
    // The witness accepts the restored chain's next checkpoint as a consistent extension of the
    // tree it cosigned before the backup (a consistency proof from its size).
    const answered = witness.cosigned.length;
    await chain.createCheckpoint.execute();
    await chain.submitToWitness?.execute();
    expect(witness.cosigned.slice(answered)).toEqual([{ oldSize: witnessed.treeSize, size: expect.any(Number) }]);
    expect(await chain.checkpoints.latest()).toMatchObject({ witnessStatus: 'cosigned' });
    // And the offline tool agrees, straight from the restored database.
    const cli = await run(
      process.execPath,
      ['scripts/run-ts.js', 'tools/svc-audit/cli.ts', 'verify', '--region', 'us', '--database-url', restored.url],
      { cwd: ROOT },
    );
    expect(JSON.parse(cli.stdout)).toMatchObject({ valid: true, first_broken_index: null });
  });

  it('serves the same receipts, which still verify against the region keys', async () => {
    const jwks = (await http('GET', `${url}/.well-known/jwks.json`)).text;
    for (const id of recordIds) {
      const res = await http('GET', `${url}/api/v1/consent_receipts/${id}?flavor=signed`, { headers: auth(app.token) });
      expect(res.status).toBe(200);
      expect(res.text).toBe(receiptsBefore.get(id));
      expect(await verifySignedReceipt(res.text, jwks)).toMatchObject({ ok: true, recordId: id });
    }
  });

  it('resumes the outbox: new records are delivered once, old ones never again', async () => {
    const before = [...recordIds];
    const fresh = [await record('after-restore-0'), await record('after-restore-1')];
    for (const id of fresh) await waitFor(() => deliveriesOf(id).length > 0, 30_000);
    await new Promise((r) => setTimeout(r, 1_500));
    for (const id of [...before, ...fresh]) expect({ id, deliveries: deliveriesOf(id).length }).toEqual({ id, deliveries: 1 });
    const eventIds = receiver.received.map((r) => String(r.headers['x-svc-event-id']));
    expect(new Set(eventIds).size).toBe(eventIds.length);
    const db = region!.app.get(DataSource);
    await waitFor(async () => {
      const rows: Array<{ n: string }> = await db.query(`SELECT count(*) AS n FROM audit.entries WHERE entry_type = 'consent.recorded'`);
      return Number(rows[0]?.n) === recordIds.length;
    }, 30_000);
  });
});
