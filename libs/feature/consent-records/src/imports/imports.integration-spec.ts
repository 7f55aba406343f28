import { request as httpRequest } from 'node:http';
import { FakeClock } from '@svc/config';
import { http, waitFor } from '@svc/testing';
import { DataSource } from 'typeorm';
import { RecordsHarness, auth, decisions, type Json, type TestApp } from '../../test/harness';
import { ImportsRepository } from './imports.repository';
import { ImportWorker } from './use-cases/import-worker';

/** Spec: Consent record (import request), imports endpoints. Issue 6 item 2 (dry run, progress, per-row outcomes, re-runs). */
describe('consent record imports over HTTP', () => {
  const clock = new FakeClock('2026-06-01T10:00:00.000Z');
  const harness = new RecordsHarness(clock);
  let url: string;
  let app: TestApp;
  let other: TestApp;
  let flowId: string;
  let db: DataSource;

  const row = (i: number, overrides: Json = {}): Json => ({
    subject: { email: `person${i}@example.com`, external_id: `p${i}` },
    decisions: decisions(i % 2 === 0 ? 'granted' : 'declined', 'granted'),
    captured_at: '2026-05-01T00:00:00.000Z',
    idempotency_key: `import-${i}`,
    ...overrides,
  });
  const create = (json: Json, token = app.token) => http('POST', `${url}/api/v1/consent_records/imports`, { headers: auth(token), json });
  const read = (id: string, query = '', token = app.token) =>
    http('GET', `${url}/api/v1/consent_records/imports/${id}${query}`, { headers: auth(token) });
  const count = async (table: string) => (await db.query(`SELECT count(*)::int AS n FROM consent_records.${table}`))[0].n as number;

  beforeAll(async () => {
    await harness.start('imports');
    url = harness.url;
    app = await harness.newApp('shop');
    other = await harness.newApp('other');
    flowId = await harness.flow(app.token);
    db = harness.running.app.get(DataSource);
  });
  afterAll(() => harness.close());

  it('dry_run reports per row what would happen and writes nothing', async () => {
    const existing = await http('POST', `${url}/api/v1/consent_records`, {
      headers: auth(app.token),
      json: { flow_id: flowId, ...row(900) },
    });
    expect(existing.status).toBe(201);
    const before = {
      records: await count('records'),
      imports: await count('imports'),
      rows: await count('import_rows'),
      outbox: await count('outbox'),
    };
    const res = await create({
      flow_id: flowId,
      dry_run: true,
      records: [
        row(1),
        row(900),
        row(2, { decisions: { newsletter: { decision: 'granted' } } }),
        row(3, { colour: 'red' }),
        row(900, { captured_at: '2026-05-02T00:00:00.000Z' }),
        row(4, { idempotency_key: undefined }),
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: null,
      dry_run: true,
      status: 'completed',
      counts: { total: 6, would_create: 1, duplicates: 1, failed: 4 },
    });
    expect((res.body.rows as Json[]).map((r) => [r.index, r.outcome, r.reason_code])).toEqual([
      [0, 'would_create', null],
      [1, 'duplicate', null],
      [2, 'failed', 'consent_purpose_missing'],
      [3, 'failed', 'invalid_request'],
      [4, 'failed', 'idempotency_key_reused'],
      [5, 'failed', 'invalid_request'],
    ]);
    expect((res.body.rows as Json[])[1]!.record_id).toBe(existing.body.id);
    expect((res.body.rows as Json[])[2]!.detail).toMatchObject({ purpose: 'offers' });
    expect({
      records: await count('records'),
      imports: await count('imports'),
      rows: await count('import_rows'),
      outbox: await count('outbox'),
    }).toEqual(before);
  });

  it('imports in the background with progress and per-row outcomes; a failed row never blocks the others; a re-run creates nothing twice', async () => {
    const rows = Array.from({ length: 1_203 }, (_, i) =>
      i === 7
        ? row(i, { decisions: 'yes' })
        : i === 800
          ? row(i, { decisions: { ...decisions('granted', 'granted'), coupons: { decision: 'granted' } } })
          : row(i),
    );
    const res = await create({ flow_id: flowId, records: rows });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ object: 'consent_import', dry_run: false, flow_id: flowId, counts: { total: 1_203 } });
    expect(res.body.id).toMatch(/^cimp_us_/);
    const id = res.body.id as string;
    const done = await waitFor(async () => {
      const r = await read(id);
      return r.body.status === 'completed' ? r : undefined;
    }, 60_000);
    // Row 900 was recorded by the dry-run test through the Record API with the same key and body.
    expect(done.body.counts).toEqual({ total: 1_203, processed: 1_203, pending: 0, created: 1_200, duplicates: 1, failed: 2 });
    const failed = await read(id, '?outcome=failed');
    expect((failed.body.rows as Json).data).toEqual([
      expect.objectContaining({ index: 7, outcome: 'failed', reason_code: 'invalid_request' }),
      expect.objectContaining({
        index: 800,
        outcome: 'failed',
        reason_code: 'purpose_not_in_flow',
        detail: expect.objectContaining({ purpose: 'coupons' }),
      }),
    ]);
    // Cursor pagination walks every row exactly once.
    let cursor: string | null = null;
    let seen = 0;
    do {
      const page: Awaited<ReturnType<typeof read>> = await read(id, `?limit=200${cursor ? `&cursor=${cursor}` : ''}`);
      const data = (page.body.rows as Json).data as Json[];
      expect(data[0]!.index).toBe(seen);
      seen += data.length;
      cursor = (page.body.rows as Json).next_cursor as string | null;
    } while (cursor);
    expect(seen).toBe(1_203);
    const first = ((await read(id, '?limit=1')).body.rows as Json).data as Json[];
    const record = await http('GET', `${url}/api/v1/consent_records/${first[0]!.record_id as string}`, { headers: auth(app.token) });
    expect(record.body).toMatchObject({
      collection_channel: 'imported',
      captured_at: '2026-05-01T00:00:00.000Z',
      recorded_at: '2026-06-01T10:00:00.000Z',
      idempotency_key: 'import-0',
    });

    const recordsBefore = await count('records');
    const rerun = await create({ flow_id: flowId, records: rows });
    const redone = await waitFor(async () => {
      const r = await read(rerun.body.id as string);
      return r.body.status === 'completed' ? r : undefined;
    }, 60_000);
    expect(redone.body.counts).toMatchObject({ created: 0, duplicates: 1_201, failed: 2 });
    expect(await count('records')).toBe(recordsBefore);
  });

  it('applies the later-record rule between rows of an import', async () => {
    const res = await create({
      flow_id: flowId,
      records: [
        row(5000, { decisions: decisions('granted', 'granted') }),
        row(5000, { idempotency_key: 'later', decisions: decisions('granted', 'declined'), captured_at: '2026-05-15T00:00:00.000Z' }),
      ],
    });
    await waitFor(async () => (await read(res.body.id as string)).body.status === 'completed');
    const st = await http('GET', `${url}/api/v1/applications/${app.id}/consent_status?subject[external_id]=p5000`, {
      headers: auth(app.token),
    });
    expect((st.body.purposes as Json[]).map((p) => [p.purpose, p.status])).toEqual([
      ['newsletter', 'granted'],
      ['offers', 'declined'],
    ]);
  });

  it('resumes an import whose worker stopped mid-way (lease lapsed)', async () => {
    const repo = harness.running.app.get(ImportsRepository);
    const id = 'cimp_us_abcdefghijklmnopqrst';
    const lease = new Date(clock.now().getTime() + 60_000);
    await repo.insertReceiving({ id, applicationId: app.id }, clock.now(), lease);
    await repo.storeReceivedRows(id, 0, [row(7001), row(7002), row(7003)], lease);
    expect(await repo.queueReceived(id, flowId, 3)).toBe(true);
    await repo.transaction(async (manager) => {
      await repo.saveResults(
        manager,
        id,
        [{ index: 0, outcome: 'failed', recordId: null, reasonCode: 'internal_error', detail: null }],
        new Date(clock.now().getTime() - 1),
      );
    });
    await db.query(`UPDATE consent_records.imports SET status = 'running' WHERE id = $1`, [id]);
    harness.running.app.get(ImportWorker).wake();
    const done = await waitFor(async () => {
      const r = await read(id);
      return r.body.status === 'completed' ? r : undefined;
    });
    expect(done.body.counts).toEqual({ total: 3, processed: 3, pending: 0, created: 2, duplicates: 0, failed: 1 });
  });

  describe('request limits of the import route (64 MiB, 100,000 rows; other routes keep 1 MiB)', () => {
    it('accepts an import body over 1 MiB and imports every row', async () => {
      const json = { flow_id: flowId, records: Array.from({ length: 6_000 }, (_, i) => row(20_000 + i)) };
      expect(Buffer.byteLength(JSON.stringify(json))).toBeGreaterThan(1_048_576);
      const res = await create(json);
      expect(res.status).toBe(202);
      const done = await waitFor(async () => {
        const r = await read(res.body.id as string);
        return r.body.status === 'completed' ? r : undefined;
      }, 60_000);
      expect(done.body.counts).toEqual({ total: 6_000, processed: 6_000, pending: 0, created: 6_000, duplicates: 0, failed: 0 });
    });

    it('keeps the 1 MiB limit on other routes', async () => {
      const record = await http('POST', `${url}/api/v1/consent_records`, {
        headers: auth(app.token),
        json: { flow_id: flowId, ...row(1), notice_digest: 'x'.repeat(1_100_000) },
      });
      expect([record.status, record.body.reason_code]).toEqual([413, 'payload_too_large']);
    });

    it('answers 413 payload_too_large naming the limit for a body over 64 MiB, and stores nothing', async () => {
      const imports = await count('imports');
      const raw = `{"flow_id":"${flowId}","records":[{"subject":{"external_id":"${'x'.repeat(64 * 1_048_576)}"}}]}`;
      const res = await http('POST', `${url}/api/v1/consent_records/imports`, {
        headers: { ...auth(app.token), 'content-type': 'application/json' },
        raw,
      });
      expect(res.status).toBe(413);
      expect(res.body).toMatchObject({ reason_code: 'payload_too_large', detail: { limit_bytes: 67_108_864 } });
      expect(res.body.message).toMatch(/64 MiB/);
      expect(await count('imports')).toBe(imports);
    });

    it('answers 413 payload_too_large naming the limit for more than 100,000 rows, dry run or not', async () => {
      const imports = await count('imports');
      for (const dryRun of [false, true]) {
        const res = await create({ flow_id: flowId, dry_run: dryRun, records: Array.from({ length: 100_001 }, () => ({})) });
        expect(res.status).toBe(413);
        expect(res.body).toMatchObject({
          reason_code: 'payload_too_large',
          detail: { field: 'records', limit_rows: 100_000, rows: 100_001 },
        });
        expect(res.body.message).toMatch(/at most 100,000 rows/);
      }
      expect(await count('imports')).toBe(imports);
    });
  });

  describe('bodies read as they arrive', () => {
    const post = (raw: string | Buffer, contentType: string, query = '', token = app.token) =>
      http('POST', `${url}/api/v1/consent_records/imports${query}`, { headers: { ...auth(token), 'content-type': contentType }, raw });
    const counts = async () => ({ imports: await count('imports'), rows: await count('import_rows') });
    const finished = (id: string) =>
      waitFor(async () => {
        const r = await read(id);
        return r.body.status === 'completed' ? r : undefined;
      }, 60_000);

    it('imports NDJSON, one row per line, with flow_id and dry_run in the query', async () => {
      const lines = [row(30_000), row(30_001), row(30_002)].map((r) => JSON.stringify(r));
      const dry = await post(`${lines.join('\n')}\n`, 'application/x-ndjson', `?flow_id=${flowId}&dry_run=true`);
      expect([dry.status, dry.body.counts]).toEqual([200, { total: 3, would_create: 3, duplicates: 0, failed: 0 }]);
      const res = await post(`${lines.join('\r\n')}`, 'application/x-ndjson', `?flow_id=${flowId}`);
      expect(res.status).toBe(202);
      expect((await finished(res.body.id as string)).body.counts).toEqual({
        total: 3,
        processed: 3,
        pending: 0,
        created: 3,
        duplicates: 0,
        failed: 0,
      });
      const missing = await post(lines[0]!, 'application/x-ndjson');
      expect([missing.status, missing.body.detail]).toEqual([400, expect.objectContaining({ field: 'flow_id' })]);
      const broken = await post(`${lines[0]}\n{"subject":`, 'application/x-ndjson', `?flow_id=${flowId}`);
      expect([broken.status, broken.body.reason_code, (broken.body.detail as Json).field]).toEqual([400, 'malformed_json', 'records.1']);
    });

    it('takes the members of a JSON body in any order, rows before flow_id included', async () => {
      const raw = `{"records":${JSON.stringify([row(31_000), row(31_001)])},"flow_id":"${flowId}"}`;
      const res = await post(raw, 'application/json');
      expect(res.status).toBe(202);
      expect((await finished(res.body.id as string)).body.counts).toMatchObject({ total: 2, created: 2 });
    });

    it('refuses a body that goes wrong after thousands of rows and keeps nothing of it', async () => {
      const before = await counts();
      const rows = Array.from({ length: 2_500 }, (_, i) => JSON.stringify(row(32_000 + i))).join(',');
      const cases: Array<[string, number, string, string | undefined]> = [
        [`{"flow_id":"${flowId}","records":[${rows},{"subject":`, 400, 'malformed_json', undefined],
        [
          `{"flow_id":"${flowId}","records":[${rows},{"subject":{"external_id":"a\\u0000b"}}]}`,
          400,
          'invalid_request',
          'records.2500.subject.external_id',
        ],
        [`{"flow_id":"${flowId}","records":[${rows},"row"]}`, 400, 'invalid_request', 'records.2500'],
        [`{"flow_id":"${flowId}","records":[${rows}],"colour":"red"}`, 400, 'invalid_request', 'colour'],
        [`{"flow_id":"${flowId}","records":[${rows}],"records":[]}`, 400, 'malformed_json', undefined],
        [`{"flow_id":"${flowId}","records":[${rows}]} trailing`, 400, 'malformed_json', undefined],
        [`{"records":[${rows}],"flow_id":"flw_eu_aaaaaaaaaaaaaaaaaaaa"}`, 421, 'wrong_region', undefined],
      ];
      for (const [raw, status, reason, field] of cases) {
        const res = await post(raw, 'application/json');
        expect([res.status, res.body.reason_code]).toEqual([status, reason]);
        if (field) expect((res.body.detail as Json).field).toBe(field);
      }
      expect(await counts()).toEqual(before);
    });

    it('keeps nothing of an upload the client broke off', async () => {
      const before = await counts();
      const rows = Array.from({ length: 3_000 }, (_, i) => JSON.stringify(row(34_000 + i))).join(',');
      const part = `{"flow_id":"${flowId}","records":[${rows},`;
      const { hostname, port } = new URL(url);
      const request = httpRequest({
        host: hostname,
        port,
        method: 'POST',
        path: '/api/v1/consent_records/imports',
        headers: { ...auth(app.token), 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(part) + 1_000) },
      });
      request.on('error', () => undefined);
      request.write(part);
      // Rows were stored while the body arrived; breaking off removes them.
      await waitFor(async () => (await count('import_rows')) > before.rows);
      request.destroy();
      await waitFor(async () => JSON.stringify(await counts()) === JSON.stringify(before));
    });

    it('answers a query beside a JSON body 400, and NDJSON on other routes 415', async () => {
      const res = await post(JSON.stringify({ flow_id: flowId, records: [row(1)] }), 'application/json', `?flow_id=${flowId}`);
      expect([res.status, (res.body.detail as Json).field]).toEqual([400, 'flow_id']);
      const other = await http('POST', `${url}/api/v1/consent_records`, {
        headers: { ...auth(app.token), 'content-type': 'application/x-ndjson' },
        raw: JSON.stringify({ flow_id: flowId, ...row(1) }),
      });
      expect([other.status, other.body.reason_code]).toEqual([415, 'unsupported_media_type']);
    });

    it('removes an upload that broke off with its process once its lease ran out, and never processes it', async () => {
      const repo = harness.running.app.get(ImportsRepository);
      const id = 'cimp_us_bbbbbbbbbbbbbbbbbbbb';
      const lapsed = new Date(clock.now().getTime() - 1);
      await repo.insertReceiving({ id, applicationId: app.id }, clock.now(), lapsed);
      await repo.storeReceivedRows(id, 0, [row(33_000)], lapsed);
      expect((await read(id)).status).toBe(404);
      await harness.running.app.get(ImportWorker).drain();
      expect(await db.query(`SELECT count(*)::int AS n FROM consent_records.import_rows WHERE import_id = $1`, [id])).toEqual([{ n: 0 }]);
      expect(await db.query(`SELECT count(*)::int AS n FROM consent_records.imports WHERE id = $1`, [id])).toEqual([{ n: 0 }]);
      expect(await db.query(`SELECT count(*)::int AS n FROM consent_records.records WHERE idempotency_key = 'import-33000'`)).toEqual([
        { n: 0 },
      ]);
    });
  });

  it('answers 4xx for bad input, unknown or foreign imports and wrong auth', async () => {
    expect((await create({ flow_id: flowId, records: [] })).body.reason_code).toBe('validation_failed');
    expect((await create({ flow_id: flowId, records: 'x' })).body.reason_code).toBe('invalid_request');
    expect((await create({ flow_id: flowId, records: [1] })).body.reason_code).toBe('invalid_request');
    expect((await create({ flow_id: flowId, records: [row(1)], colour: 1 })).body.reason_code).toBe('invalid_request');
    expect((await create({ flow_id: flowId, records: [row(1)], dry_run: 'yes' })).body.reason_code).toBe('invalid_request');
    const malformed = await http('POST', `${url}/api/v1/consent_records/imports`, {
      headers: { ...auth(app.token), 'content-type': 'application/json' },
      raw: '[',
    });
    expect([malformed.status, malformed.body.reason_code]).toEqual([400, 'malformed_json']);
    const draft = await harness.flow(app.token, { activate: false });
    expect((await create({ flow_id: draft, records: [row(1)] })).body.reason_code).toBe('flow_not_active');
    expect((await create({ flow_id: flowId, records: [row(1)] }, other.token)).body.reason_code).toBe('flow_not_found');
    expect((await create({ flow_id: flowId, records: [row(1)] }, 'nope')).status).toBe(401);
    expect(
      (
        await http('POST', `${url}/api/v1/consent_records/imports`, {
          headers: { 'x-publishable-key': app.pk },
          json: { flow_id: flowId, records: [row(1)] },
        })
      ).status,
    ).toBe(403);
    const job = await create({ flow_id: flowId, records: [row(1)] });
    expect((await read(job.body.id as string, '', other.token)).body.reason_code).toBe('import_not_found');
    expect((await read('cimp_us_aaaaaaaaaaaaaaaaaaaa')).status).toBe(404);
    expect((await read('nope')).status).toBe(404);
    expect((await read(job.body.id as string, '?cursor=zzz')).body.reason_code).toBe('invalid_cursor');
    expect((await read(job.body.id as string, '?outcome=maybe')).status).toBe(422);
    expect((await read(job.body.id as string, '?colour=1')).status).toBe(400);
    expect((await read(job.body.id as string, '', 'nope')).status).toBe(401);
  });
});
