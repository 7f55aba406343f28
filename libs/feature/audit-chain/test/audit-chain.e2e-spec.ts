import { RpcClient } from '@svc/bus';
import { FakeClock } from '@svc/config';
import { CreateApplication, CreateApplicationCommand, decisionGatewayFeature } from '@svc/decision-gateway';
import { openCheckpoint, parseVerifierKey, verifyConsistency, verifyCosignature, verifyInclusion } from '@svc/merkle';
import { startProcess, type RunningProcess } from '@svc/server';
import {
  createTestDatabase,
  deleteTestStreams,
  http,
  testEnv,
  uniqueBusPrefix,
  type TestDatabase,
  startLoopbackWitness,
  type LoopbackWitness,
} from '@svc/testing';
import { auditChainFeature } from '../src/audit-chain.feature';
import { AuditChain } from '../src/audit-chain.runtime';
import { parseWitnessKey } from '../src/checkpoints/tlog-witness';
import { entryLeafHash } from '../src/verification/merkle-frontier';
import { entries } from './support/chain-fixture';

type Json = Record<string, unknown>;
const b64 = (text: string): Uint8Array => new Uint8Array(Buffer.from(text, 'base64'));

/** Issue 9 over HTTP: audit API, well-known documents, readiness and metrics of the witness. */
describe('audit-chain over HTTP', () => {
  const clock = new FakeClock('2026-05-01T00:00:00.000Z');
  const prefix = uniqueBusPrefix();
  let database: TestDatabase;
  let witness: LoopbackWitness;
  let running: RunningProcess;
  let url: string;
  let chain: AuditChain;
  let appA: { id: string; token: string; publishableKey: string };
  let appB: { id: string; token: string };
  const auth = (token: string) => ({ authorization: `Bearer ${token}` });

  beforeAll(async () => {
    database = await createTestDatabase('audit_e2e');
    witness = await startLoopbackWitness('witness.test/e2e', () => clock.now().getTime());
    running = await startProcess({
      features: [decisionGatewayFeature, auditChainFeature],
      env: testEnv({
        REGION: 'us',
        DATABASE_URL: database.url,
        BUS_PREFIX: prefix,
        PUBLIC_BASE_URL: 'https://api.e2e.example',
        AUDIT_WITNESS_URL: witness.url,
        AUDIT_WITNESS_KEY: witness.verifierKey,
      }),
      clock,
    });
    url = running.url;
    chain = running.app.get(AuditChain);
    const config = (await http<Json>('GET', `${url}/.well-known/witness-configuration`)).body;
    witness.trust(String((config.log_keys as Json[])[0]?.verifier_key));
    const create = async (name: string) => {
      const created = await running.app
        .get(CreateApplication)
        .execute(CreateApplicationCommand.create({ name, environment: 'development' }));
      return { id: created.application.id, token: created.apiToken, publishableKey: created.publishableKey };
    };
    appA = await create('alpha');
    appB = await create('beta');
    await chain.appender.append(entries(5, appA.id, 'a'));
    await chain.appender.append(entries(3, appB.id, 'b'));
    await chain.scheduler.tick();
  });
  afterAll(async () => {
    await running?.close();
    await witness?.close();
    await database?.drop();
    await deleteTestStreams(prefix);
  });

  describe('GET /.well-known/witness-configuration', () => {
    it('says where the witness is, which keys sign, and how to verify', async () => {
      const res = await http<Json>('GET', `${url}/.well-known/witness-configuration`);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        object: 'witness_configuration',
        region: 'us',
        origin: 'api.e2e.example/audit/us',
        genesis_hash: expect.stringMatching(/^[0-9a-f]{64}$/),
        checkpoint_interval_seconds: 900,
        witnesses: [{ name: 'witness.test/e2e', url: witness.url, verifier_key: witness.verifierKey, status: 'ok' }],
        latest_checkpoint: { object: 'audit_checkpoint', tree_size: 9, witness: { status: 'cosigned' } },
      });
      const logKey = (res.body.log_keys as Json[])[0];
      expect(logKey).toMatchObject({ kid: 'oap-us-v1', status: 'active' });
      expect(parseVerifierKey(String(logKey?.verifier_key)).name).toBe('api.e2e.example/audit/us');
    });

    it('exposes the same genesis hash over the audit.get_chain_info RPC (for chronicle_genesis_hashes)', async () => {
      const info = await running.app.get(RpcClient).call('audit.get_chain_info', {});
      const config = (await http<Json>('GET', `${url}/.well-known/witness-configuration`)).body;
      expect(info).toMatchObject({ region: 'us', origin: 'api.e2e.example/audit/us', genesisHash: config.genesis_hash });
      expect(Number(info.size)).toBeGreaterThanOrEqual(9);
    });
  });

  describe('GET /api/v1/audit/entries', () => {
    it('lists only the token application entries, paginated by cursor, never truncated', async () => {
      const first = await http<Json>('GET', `${url}/api/v1/audit/entries?limit=3`, { headers: auth(appA.token) });
      expect(first.status).toBe(200);
      expect(first.body).toMatchObject({ has_more: true, next_cursor: expect.any(String) });
      const second = await http<Json>('GET', `${url}/api/v1/audit/entries?limit=3&cursor=${String(first.body.next_cursor)}`, {
        headers: auth(appA.token),
      });
      expect(second.body).toMatchObject({ has_more: false, next_cursor: null });
      const all = [...(first.body.data as Json[]), ...(second.body.data as Json[])];
      expect(all).toHaveLength(5);
      expect(all.every((e) => e.application_id === appA.id && /^audit_rec_/.test(String(e.id)))).toBe(true);
      expect(all.map((e) => e.index)).toEqual([1, 2, 3, 4, 5]);
    });

    it.each([
      ['a forged cursor', '?cursor=bm9wZQ', 400, 'invalid_cursor'],
      ['an unknown field', '?colour=red', 400, 'invalid_request'],
      ['a wrong type', '?limit=abc', 400, 'invalid_request'],
      ['a limit out of range', '?limit=0', 422, 'validation_failed'],
      ['an oversized cursor', `?cursor=${'a'.repeat(600)}`, 422, 'validation_failed'],
    ])('answers %s with %i %s', async (_case, query, status, reason) => {
      const res = await http<Json>('GET', `${url}/api/v1/audit/entries${query}`, { headers: auth(appA.token) });
      expect(res.status).toBe(status);
      expect(res.body.reason_code).toBe(reason);
    });
  });

  describe('authentication of the audit API', () => {
    it.each(['/api/v1/audit/entries', '/api/v1/audit/verify'])('answers 401 without a token on %s', async (path) => {
      const res = await http<Json>('GET', `${url}${path}`);
      expect(res.status).toBe(401);
      expect(res.body.reason_code).toBe('unauthenticated');
    });

    it('answers 401 invalid_token for an unknown token and 403 for a publishable key', async () => {
      expect((await http<Json>('GET', `${url}/api/v1/audit/entries`, { headers: auth('nope') })).body.reason_code).toBe('invalid_token');
      const pk = await http<Json>('GET', `${url}/api/v1/audit/entries`, { headers: { 'x-publishable-key': appA.publishableKey } });
      expect(pk.status).toBe(403);
      expect(pk.body.reason_code).toBe('publishable_key_not_allowed');
    });

    it('answers 403 insufficient_scope for a token without audit:verify', async () => {
      const issued = await http<Json>('POST', `${url}/api/v1/applications/${appA.id}/api_tokens`, {
        headers: auth(appA.token),
        json: { name: 'no scope', scopes: [] },
      });
      expect(issued.status).toBe(201);
      const token = String((issued.body.api_token as Json).token);
      for (const path of ['/api/v1/audit/entries', '/api/v1/audit/verify']) {
        const res = await http<Json>('GET', `${url}${path}`, { headers: auth(token) });
        expect(res.status).toBe(403);
        expect(res.body.reason_code).toBe('insufficient_scope');
      }
    });
  });

  describe('GET /api/v1/audit/entries/:id and its inclusion proof', () => {
    it('serves an inclusion proof that verifies offline against the signed checkpoint, and fails when tampered', async () => {
      const list = await http<Json>('GET', `${url}/api/v1/audit/entries?limit=1`, { headers: auth(appA.token) });
      const id = String(((list.body.data as Json[])[0] as Json).id);
      const res = await http<Json>('GET', `${url}/api/v1/audit/entries/${id}/inclusion_proof`, { headers: auth(appA.token) });
      expect(res.status).toBe(200);
      const checkpoint = res.body.checkpoint as Json;
      const signed = openCheckpoint(String(checkpoint.signed_note), [parseVerifierKey(String(checkpoint.verifier_key))]).checkpoint;
      const entry = res.body.entry as Json;
      const proof = (res.body.proof as string[]).map(b64);
      const leaf = entryLeafHash(String(entry.hash));
      expect(Buffer.from(leaf).toString('base64')).toBe(res.body.leaf_hash);
      expect(verifyInclusion(Number(entry.index), signed.size, leaf, proof, signed.rootHash)).toBe(true);
      expect(verifyInclusion(Number(entry.index), signed.size, entryLeafHash('ab'.repeat(32)), proof, signed.rootHash)).toBe(false);
      const witnessKey = parseWitnessKey(witness.verifierKey);
      expect(
        verifyCosignature(String((checkpoint.witness as Json).cosigned_note), { name: witnessKey.name, publicKey: witnessKey.publicKey })
          .valid,
      ).toBe(true);
    });

    it('answers another application entry, a malformed id and an unknown id exactly alike (404)', async () => {
      const other = await http<Json>('GET', `${url}/api/v1/audit/entries?limit=1`, { headers: auth(appB.token) });
      const otherId = String(((other.body.data as Json[])[0] as Json).id);
      for (const id of [otherId, 'nope', 'audit_rec_aaaaaaaaaaaaaaaaaaaaaaaa']) {
        for (const suffix of ['', '/inclusion_proof']) {
          const res = await http<Json>('GET', `${url}/api/v1/audit/entries/${id}${suffix}`, { headers: auth(appA.token) });
          expect(res.status).toBe(404);
          expect(res.body.reason_code).toBe('audit_entry_not_found');
        }
      }
    });

    it.each([
      ['?checkpoint=abc', 400, 'invalid_request'],
      ['?checkpoint=0', 422, 'validation_failed'],
      ['?checkpoint=999', 404, 'checkpoint_not_found'],
      ['?extra=1', 400, 'invalid_request'],
    ])('answers %s with %i %s', async (query, status, reason) => {
      const list = await http<Json>('GET', `${url}/api/v1/audit/entries?limit=1`, { headers: auth(appA.token) });
      const id = String(((list.body.data as Json[])[0] as Json).id);
      const res = await http<Json>('GET', `${url}/api/v1/audit/entries/${id}/inclusion_proof${query}`, { headers: auth(appA.token) });
      expect(res.status).toBe(status);
      expect(res.body.reason_code).toBe(reason);
    });
  });

  describe('checkpoints and consistency proofs (public)', () => {
    it('lists checkpoints newest first and serves one by number or as latest', async () => {
      await chain.appender.append(entries(4, appA.id, 'c'));
      clock.advance(15 * 60_000);
      await chain.scheduler.tick();
      const list = await http<Json>('GET', `${url}/api/v1/audit/checkpoints?limit=1`);
      expect(list.status).toBe(200);
      expect(list.body).toMatchObject({ data: [{ sequence: 2, tree_size: 13 }], has_more: true });
      const next = await http<Json>('GET', `${url}/api/v1/audit/checkpoints?limit=1&cursor=${String(list.body.next_cursor)}`);
      expect(next.body).toMatchObject({ data: [{ sequence: 1, tree_size: 9 }], has_more: false });
      expect((await http<Json>('GET', `${url}/api/v1/audit/checkpoints/latest`)).body).toMatchObject({
        sequence: 2,
        witness: { status: 'cosigned' },
      });
      expect((await http<Json>('GET', `${url}/api/v1/audit/checkpoints/1`)).body).toMatchObject({ sequence: 1 });
    });

    it.each([
      ['/api/v1/audit/checkpoints/0', 400, 'invalid_request'],
      ['/api/v1/audit/checkpoints/-1', 400, 'invalid_request'],
      ['/api/v1/audit/checkpoints/99999999999999999999', 400, 'invalid_request'],
      ['/api/v1/audit/checkpoints/42', 404, 'checkpoint_not_found'],
      ['/api/v1/audit/checkpoints?cursor=bm9wZQ', 400, 'invalid_cursor'],
      ['/api/v1/audit/checkpoints?x=1', 400, 'invalid_request'],
      ['/api/v1/audit/consistency_proof', 400, 'invalid_request'],
      ['/api/v1/audit/consistency_proof?from=1', 400, 'invalid_request'],
      ['/api/v1/audit/consistency_proof?from=a&to=2', 400, 'invalid_request'],
      ['/api/v1/audit/consistency_proof?from=1&to=2&x=1', 400, 'invalid_request'],
      ['/api/v1/audit/consistency_proof?from=1&to=77', 404, 'checkpoint_not_found'],
      ['/api/v1/audit/consistency_proof?from=2&to=1', 422, 'checkpoint_order_invalid'],
    ])('answers %s with %i %s', async (path, status, reason) => {
      const res = await http<Json>('GET', `${url}${path}`);
      expect(res.status).toBe(status);
      expect(res.body.reason_code).toBe(reason);
    });

    it('serves a consistency proof that verifies offline and fails when tampered', async () => {
      const res = await http<Json>('GET', `${url}/api/v1/audit/consistency_proof?from=1&to=2`);
      expect(res.status).toBe(200);
      const open = (c: Json) => openCheckpoint(String(c.signed_note), [parseVerifierKey(String(c.verifier_key))]).checkpoint;
      const from = open(res.body.from as Json);
      const to = open(res.body.to as Json);
      const proof = (res.body.proof as string[]).map(b64);
      expect(verifyConsistency(from.size, to.size, from.rootHash, to.rootHash, proof)).toBe(true);
      expect(verifyConsistency(from.size, to.size, to.rootHash, to.rootHash, proof)).toBe(false);
      expect(verifyConsistency(from.size, to.size, from.rootHash, to.rootHash, proof.reverse())).toBe(false);
    });
  });

  describe('GET /api/v1/audit/verify', () => {
    it('recomputes the chain and reports an altered entry at its exact index', async () => {
      const ok = await http<Json>('GET', `${url}/api/v1/audit/verify`, { headers: auth(appA.token) });
      expect(ok.status).toBe(200);
      expect(ok.body).toMatchObject({
        object: 'audit_verification',
        valid: true,
        verified_size: 13,
        checkpoints_verified: 2,
        first_broken_index: null,
        reason: null,
      });
      const fromCheckpoint = await http<Json>('GET', `${url}/api/v1/audit/verify?from_checkpoint=1`, { headers: auth(appA.token) });
      expect(fromCheckpoint.body).toMatchObject({ valid: true, verified_from_index: 9, verified_size: 13 });

      const dataSource = running.app.get(AuditChain).entries;
      const row = await dataSource.byIndex(6);
      const { DataSource } = await import('typeorm');
      const db = running.app.get(DataSource);
      await db.query(`UPDATE audit.entries SET canonical = replace(canonical, '"n":', '"m":') WHERE idx = 6`);
      const broken = await http<Json>('GET', `${url}/api/v1/audit/verify`, { headers: auth(appA.token) });
      await db.query('UPDATE audit.entries SET canonical = $1 WHERE idx = 6', [row?.canonical]);
      expect(broken.body).toMatchObject({ valid: false, first_broken_index: 6, reason: 'hash_mismatch' });
    });

    it.each([
      ['?from_checkpoint=abc', 400, 'invalid_request'],
      ['?from_checkpoint=0', 422, 'validation_failed'],
      ['?from_checkpoint=55', 404, 'checkpoint_not_found'],
      ['?other=1', 400, 'invalid_request'],
    ])('answers %s with %i %s', async (query, status, reason) => {
      const res = await http<Json>('GET', `${url}/api/v1/audit/verify${query}`, { headers: auth(appA.token) });
      expect(res.status).toBe(status);
      expect(res.body.reason_code).toBe(reason);
    });
  });

  describe('GET /.well-known/transparency/...', () => {
    it('lists the application checkpoints and how to verify them, without entry content', async () => {
      const res = await http<Json>('GET', `${url}/.well-known/transparency/${appA.id}`);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        object: 'audit_transparency',
        application_id: appA.id,
        entry_count: 9,
        first_index: 1,
        origin: 'api.e2e.example/audit/us',
      });
      expect((res.body.checkpoints as Json[]).map((c) => c.sequence)).toEqual([2, 1]);
      expect(res.text).not.toContain('canonical"');
      // The entries' note is "café 😀" (chain fixture); "caf" alone can occur in a hex hash.
      expect(res.text).not.toContain('caf\u00e9');
      expect(res.text).not.toContain('caf\\u00e9');
    });

    it.each([
      ['/.well-known/transparency/tp_us_zzzzzzzzzzzzzzzzzzzz', 'application_not_found'],
      ['/.well-known/transparency/not-an-id', 'application_not_found'],
      ['/.well-known/transparency/agents/agent_us_zzzzzzzzzzzzzzzzzzzz', 'agent_not_found'],
      ['/.well-known/transparency/agents/nope', 'agent_not_found'],
    ])('answers %s with 404 %s', async (path, reason) => {
      const res = await http<Json>('GET', `${url}${path}`);
      expect(res.status).toBe(404);
      expect(res.body.reason_code).toBe(reason);
    });

    it('serves an agent page once the agent has entries', async () => {
      await chain.appender.appendOne({
        type: 'authority.created',
        applicationId: appA.id,
        agentId: 'agent_us_aaaaaaaaaaaaaaaaaaaa',
        sourceEventId: 'agent-1',
        data: {},
      });
      const res = await http<Json>('GET', `${url}/.well-known/transparency/agents/agent_us_aaaaaaaaaaaaaaaaaaaa`);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ agent_id: 'agent_us_aaaaaaaaaaaaaaaaaaaa', entry_count: 1, checkpoints: [] });
    });
  });

  describe('a witness outage', () => {
    it('leaves appends working and shows on /readyz (non-critical) and /metrics', async () => {
      await witness.close();
      await chain.appender.append(entries(3, appA.id, 'outage'));
      clock.advance(15 * 60_000);
      await chain.scheduler.tick();
      expect(await chain.checkpoints.latest()).toMatchObject({ witnessStatus: 'pending', witnessAttempts: 1 });
      const more = await chain.appender.append(entries(3, appA.id, 'outage2'));
      expect(more.every((e) => !e.duplicate)).toBe(true);

      const ready = await http<Json>('GET', `${url}/readyz`);
      expect(ready.status).toBe(200);
      expect((ready.body.checks as Json).audit_witness).toMatchObject({
        ok: false,
        detail: { witness: 'witness.test/e2e', consecutive_failures: 1, pending_checkpoints: 1 },
      });
      const metrics = await http('GET', `${url}/metrics`);
      expect(metrics.text).toMatch(/^audit_witness_up\{[^}]*\} 0$/m);
      expect(metrics.text).toMatch(/^audit_witness_consecutive_failures\{[^}]*\} 1$/m);
      const config = await http<Json>('GET', `${url}/.well-known/witness-configuration`);
      expect((config.body.witnesses as Json[])[0]).toMatchObject({ status: 'unreachable' });
    });
  });
});
