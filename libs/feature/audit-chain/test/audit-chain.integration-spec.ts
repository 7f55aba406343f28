import { generateKeyPairSync } from 'node:crypto';
import {
  SIGNATURE_TYPE_COSIGNATURE_V1,
  chainHash,
  ed25519PublicKeyRaw,
  openCheckpoint,
  parseVerifierKey,
  verifierKeyString,
  verifyConsistency,
  verifyCosignature,
  verifyInclusion,
} from '@svc/merkle';
import { buildConsistencyProof, buildInclusionProof } from '../src/proofs/build-proofs';
import { entryLeafHash } from '../src/verification/merkle-frontier';
import { createTestDatabase, startLoopbackWitness, type LoopbackWitness } from '@svc/testing';
import { entries, openChain, type ChainFixture } from './support/chain-fixture';

const b64 = (text: string): Uint8Array => new Uint8Array(Buffer.from(text, 'base64'));

/** Issue 9 Deliver 1 and 3: group-committed appends, idempotence, tamper detection at the exact index. */
describe('audit chain appends and verification (Postgres)', () => {
  let f: ChainFixture;
  beforeAll(async () => {
    f = await openChain(await createTestDatabase('audit_append'));
  });
  afterAll(() => f?.close());

  it('appends concurrent callers into one contiguous chain whose every link recomputes', async () => {
    const results = await Promise.all([
      f.chain.appender.append(entries(150, undefined, 'a')),
      f.chain.appender.append(entries(150, undefined, 'b')),
    ]);
    const indexes = results
      .flat()
      .map((r) => r.index)
      .sort((x, y) => x - y);
    expect(results.flat().every((r) => !r.duplicate)).toBe(true);
    // The first batch reads the head (checked path).
    expect(f.chain.appender.stats).toEqual({ checkedPathCommits: 1, fastPathCommits: 0 });
    expect(indexes).toEqual(Array.from({ length: 300 }, (_, i) => i + 1));
    const rows: Array<{ idx: string; previous_hash: string; hash: string; canonical: string }> = await f.dataSource.query(
      'SELECT idx, previous_hash, hash, canonical FROM audit.entries ORDER BY idx',
    );
    expect(rows).toHaveLength(301);
    rows.forEach((row, i) => {
      if (i > 0) expect(row.previous_hash).toBe(rows[i - 1]?.hash);
      expect(chainHash(row.previous_hash, row.canonical)).toBe(row.hash);
    });
    expect(rows[0]?.previous_hash).toBe('0'.repeat(64));
    expect(JSON.parse(rows[0]?.canonical ?? '{}')).toMatchObject({
      type: 'audit.genesis',
      data: { region: 'us', origin: 'api.test.example/audit/us' },
    });
    expect((await f.chain.verifyChain.execute()).valid).toBe(true);
  });

  it('appends a duplicated source event once, within one batch and across batches', async () => {
    const input = { type: 'consent.revoked', applicationId: 'tp_us_aaaaaaaaaaaaaaaaaaaa', sourceEventId: 'dup-1', data: { x: 1 } };
    const [first, again] = await f.chain.appender.append([input, input]);
    const later = await f.chain.appender.appendOne(input);
    expect(first?.duplicate).toBe(false);
    expect(again).toEqual({ ...first, duplicate: true });
    expect(later).toEqual({ ...first, duplicate: true });
    // Once the head is known a batch is one round trip; a recorded source id sends it down the checked path.
    expect(f.chain.appender.stats).toEqual({ checkedPathCommits: 2, fastPathCommits: 1 });
    const rows: unknown[] = await f.dataSource.query(`SELECT 1 FROM audit.entries WHERE source_event_id = 'dup-1'`);
    expect(rows).toHaveLength(1);
  });

  it('keeps one chain when two writers (two processes) append at the same time', async () => {
    const { AuditAppender } = await import('../src/chain/audit-appender');
    const other = new AuditAppender(f.dataSource, { region: 'us', origin: f.chain.origin, clock: f.clock, maxBatch: 7 });
    const mine = f.chain.appender;
    const rounds = await Promise.all([
      ...[0, 1, 2, 3].map((r) => mine.append(entries(40, undefined, `race-mine-${r}`))),
      ...[0, 1, 2, 3].map((r) => other.append(entries(40, undefined, `race-other-${r}`))),
      other.appendOne({ type: 'consent.granted', sourceEventId: 'race-mine-0-3', data: {} }),
    ]);
    const appended = rounds.flat();
    expect(appended.filter((e) => e.duplicate)).toHaveLength(1);
    const indexes = appended.filter((e) => !e.duplicate).map((e) => e.index);
    expect(new Set(indexes).size).toBe(320);
    expect(await f.chain.verifyChain.execute()).toMatchObject({ valid: true });
    await other.drain();
  });

  it('rejects an entry without a canonical form on its own, committing its neighbours', async () => {
    const results = await Promise.allSettled([
      f.chain.appender.appendOne({ type: 'consent.granted', sourceEventId: 'ok-1', data: { fine: true } }),
      f.chain.appender.appendOne({ type: 'consent.granted', sourceEventId: 'bad-1', data: { broken: '\ud800' } }),
    ]);
    expect(results[0]?.status).toBe('fulfilled');
    expect(results[1]).toMatchObject({ status: 'rejected', reason: { code: 'audit_entry_invalid' } });
    expect(() => f.chain.appender.append([{ type: '', data: null }])).toThrow(
      expect.objectContaining({ code: 'audit_entry_invalid' }) as Error,
    );
    expect((await f.chain.verifyChain.execute()).valid).toBe(true);
  });

  describe('tampering with stored entries is reported at its exact index', () => {
    async function withTamper(sql: string, params: unknown[], restore: () => Promise<void>) {
      await f.dataSource.query(sql, params);
      try {
        return await f.chain.verifyChain.execute();
      } finally {
        await restore();
      }
    }
    const snapshot = async (index: number) =>
      ((await f.dataSource.query('SELECT * FROM audit.entries WHERE idx = $1', [index])) as Array<Record<string, unknown>>)[0] as Record<
        string,
        unknown
      >;
    const put = async (row: Record<string, unknown>) => {
      await f.dataSource.query('DELETE FROM audit.entries WHERE idx = $1', [row.idx]);
      await f.dataSource.query(
        `INSERT INTO audit.entries (idx, id, previous_hash, hash, canonical, entry_type, application_id, agent_id, source_event_id, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
        [
          row.idx,
          row.id,
          row.previous_hash,
          row.hash,
          row.canonical,
          row.entry_type,
          row.application_id,
          row.agent_id,
          row.source_event_id,
          row.created_at,
        ],
      );
    };

    it('an altered entry (hash_mismatch)', async () => {
      const row = await snapshot(137);
      const result = await withTamper(`UPDATE audit.entries SET canonical = replace(canonical, '"n":', '"m":') WHERE idx = 137`, [], () =>
        put(row),
      );
      expect(result).toMatchObject({ valid: false, firstBrokenIndex: 137, reason: 'hash_mismatch' });
      expect((await f.chain.verifyChain.execute()).valid).toBe(true);
    });

    it('a deleted entry (missing_entry at the deleted index)', async () => {
      const row = await snapshot(42);
      const result = await withTamper('DELETE FROM audit.entries WHERE idx = 42', [], () => put(row));
      expect(result).toMatchObject({ valid: false, firstBrokenIndex: 42, reason: 'missing_entry' });
    });

    it('two reordered entries (link_mismatch at the earlier index)', async () => {
      const a = await snapshot(200);
      const b = await snapshot(201);
      await f.dataSource.query('DELETE FROM audit.entries WHERE idx IN (200, 201)');
      await put({ ...b, idx: 200 });
      await put({ ...a, idx: 201 });
      const result = await f.chain.verifyChain.execute();
      await f.dataSource.query('DELETE FROM audit.entries WHERE idx IN (200, 201)');
      await put(a);
      await put(b);
      expect(result).toMatchObject({ valid: false, firstBrokenIndex: 200, reason: 'link_mismatch' });
      expect((await f.chain.verifyChain.execute()).valid).toBe(true);
    });

    it('an entry inserted with a valid link to its predecessor (inserted_entry at its index)', async () => {
      const before = await snapshot(49);
      const shift = async (from: number, by: number) => {
        // Two steps: a unique index cannot take a one-step shift of consecutive keys.
        await f.dataSource.query('UPDATE audit.entries SET idx = idx + 1000000 WHERE idx >= $1', [from]);
        await f.dataSource.query('UPDATE audit.entries SET idx = idx - 1000000 + $1::bigint WHERE idx >= 1000000', [by]);
      };
      await shift(50, 1);
      let result;
      try {
        const canonical = String(before.canonical).replace('"n":', '"forged":');
        await put({
          ...before,
          idx: 50,
          id: 'audit_rec_forged0000000000000',
          source_event_id: 'forged-1',
          previous_hash: before.hash,
          hash: chainHash(String(before.hash), canonical),
          canonical,
        });
        result = await f.chain.verifyChain.execute();
      } finally {
        await f.dataSource.query('DELETE FROM audit.entries WHERE idx = 50');
        await shift(51, -1);
      }
      expect(result).toMatchObject({ valid: false, firstBrokenIndex: 50, reason: 'inserted_entry' });
      expect((await f.chain.verifyChain.execute()).valid).toBe(true);
    });

    it('the last entries deleted under a signed checkpoint (truncated), and a prefix rewrite (checkpoint_root_mismatch)', async () => {
      const checkpoint = await f.chain.createCheckpoint.execute();
      const size = checkpoint?.treeSize ?? 0;
      const last = await snapshot(size - 1);
      const truncated = await withTamper('DELETE FROM audit.entries WHERE idx = $1', [size - 1], () => put(last));
      expect(truncated).toMatchObject({
        valid: false,
        firstBrokenIndex: size - 1,
        reason: 'truncated',
        checkpointSequence: checkpoint?.sequence,
      });
      // Rewrite entry 5 and recompute every later hash: links verify, the signed root does not.
      const all: Array<Record<string, unknown>> = await f.dataSource.query('SELECT * FROM audit.entries ORDER BY idx');
      let previous = String(all[4]?.hash);
      for (const row of all.slice(5)) {
        const canonical = row.idx === '5' ? String(row.canonical).replace('"n":', '"m":') : String(row.canonical);
        const hash = chainHash(previous, canonical);
        await f.dataSource.query('UPDATE audit.entries SET previous_hash = $2, hash = $3, canonical = $4 WHERE idx = $1', [
          row.idx,
          previous,
          hash,
          canonical,
        ]);
        previous = hash;
      }
      const rewritten = await f.chain.verifyChain.execute();
      for (const row of all)
        await f.dataSource.query('UPDATE audit.entries SET previous_hash = $2, hash = $3, canonical = $4 WHERE idx = $1', [
          row.idx,
          row.previous_hash,
          row.hash,
          row.canonical,
        ]);
      expect(rewritten).toMatchObject({ valid: false, firstBrokenIndex: 0, reason: 'checkpoint_root_mismatch' });
      expect(await f.chain.verifyChain.execute()).toMatchObject({ valid: true, checkpointsVerified: 1 });
    });

    it('verifies from a stored checkpoint, and reports tampering after it', async () => {
      const checkpoint = await f.chain.checkpoints.latest();
      await f.chain.appender.append(entries(20, undefined, 'after'));
      const from = await f.chain.verifyChain.execute(checkpoint?.sequence);
      expect(from).toMatchObject({ valid: true, verifiedFromIndex: checkpoint?.treeSize });
      const target = (checkpoint?.treeSize ?? 0) + 3;
      const row = await snapshot(target);
      const result = await withTamper(`UPDATE audit.entries SET canonical = canonical || ' ' WHERE idx = $1`, [target], () => put(row));
      expect(result).toMatchObject({ valid: false, firstBrokenIndex: target, reason: 'hash_mismatch' });
      await expect(f.chain.verifyChain.execute(999)).rejects.toMatchObject({ code: 'checkpoint_not_found' });
    });

    it('flags a checkpoint row whose signed note was forged', async () => {
      const checkpoint = await f.chain.checkpoints.latest();
      const note = String(checkpoint?.signedNote);
      await f.dataSource.query('UPDATE audit.checkpoints SET signed_note = $2 WHERE seq = $1', [
        checkpoint?.sequence,
        note.replace(/\u2014 (\S+) \S+/u, '\u2014 $1 AAAAAAAA'),
      ]);
      const result = await f.chain.verifyChain.execute();
      await expect(f.chain.verifyChain.execute(checkpoint?.sequence)).rejects.toMatchObject({ code: 'checkpoint_invalid' });
      await f.dataSource.query('UPDATE audit.checkpoints SET signed_note = $2 WHERE seq = $1', [checkpoint?.sequence, note]);
      expect(result).toMatchObject({ valid: false, invalidCheckpoints: [checkpoint?.sequence] });
    });
  });

  it('serves inclusion and consistency proofs that verify offline and fail when tampered', async () => {
    const first = await f.chain.createCheckpoint.execute();
    await f.chain.appender.append(entries(37, 'tp_us_bbbbbbbbbbbbbbbbbbbb', 'proofs'));
    const second = await f.chain.createCheckpoint.execute();
    if (!first || !second) throw new Error('no checkpoint');
    // Offline: only the signed notes, the log's verifier key and the proofs.
    const logVerifier = parseVerifierKey(second.verifierKey);
    const signedOld = openCheckpoint(first.signedNote, [logVerifier]).checkpoint;
    const signedNew = openCheckpoint(second.signedNote, [logVerifier]).checkpoint;

    const entry = await f.chain.entries.byIndex(first.treeSize + 7);
    if (!entry) throw new Error('no entry');
    const inclusion = await buildInclusionProof(f.chain.checkpoints, f.chain.leaves, entry, second.sequence);
    const path = inclusion.proof.map(b64);
    expect(chainHash(entry.previousHash, entry.canonical)).toBe(entry.hash);
    expect(verifyInclusion(entry.index, signedNew.size, entryLeafHash(entry.hash), path, signedNew.rootHash)).toBe(true);
    const badPath = path.map((h, i) => (i === 0 ? Uint8Array.from(h, (byte, j) => (j === 0 ? byte ^ 1 : byte)) : h));
    expect(verifyInclusion(entry.index, signedNew.size, entryLeafHash(entry.hash), badPath, signedNew.rootHash)).toBe(false);
    expect(verifyInclusion(entry.index + 1, signedNew.size, entryLeafHash(entry.hash), path, signedNew.rootHash)).toBe(false);
    expect(verifyInclusion(entry.index, signedNew.size, entryLeafHash(entry.previousHash), path, signedNew.rootHash)).toBe(false);
    await expect(buildInclusionProof(f.chain.checkpoints, f.chain.leaves, entry, first.sequence)).rejects.toMatchObject({
      code: 'entry_not_in_checkpoint',
    });

    const consistency = await buildConsistencyProof(f.chain.checkpoints, f.chain.leaves, first.sequence, second.sequence);
    const proof = consistency.proof.map(b64);
    expect(verifyConsistency(signedOld.size, signedNew.size, signedOld.rootHash, signedNew.rootHash, proof)).toBe(true);
    expect(verifyConsistency(signedOld.size, signedNew.size, signedOld.rootHash, signedNew.rootHash, proof.slice(1))).toBe(false);
    expect(verifyConsistency(signedOld.size - 1, signedNew.size, signedOld.rootHash, signedNew.rootHash, proof)).toBe(false);
    await expect(buildConsistencyProof(f.chain.checkpoints, f.chain.leaves, second.sequence, first.sequence)).rejects.toMatchObject({
      code: 'checkpoint_order_invalid',
    });
    await expect(buildConsistencyProof(f.chain.checkpoints, f.chain.leaves, first.sequence, 12345)).rejects.toMatchObject({
      code: 'checkpoint_not_found',
    });
  });
});

/** Performance item 5: the next full batch is sent while the previous one commits, without giving up order or contiguity. */
describe('audit appends with two batches in flight (Postgres)', () => {
  let f: ChainFixture;
  beforeAll(async () => {
    f = await openChain(await createTestDatabase('audit_pipeline'));
  });
  afterAll(() => f?.close());

  const stored = async (): Promise<Array<{ idx: string; previous_hash: string; hash: string; source_event_id: string | null }>> =>
    f.dataSource.query('SELECT idx, previous_hash, hash, source_event_id FROM audit.entries ORDER BY idx');

  it("keeps one call's entries in order across pipelined batches, also while another process appends", async () => {
    const { AuditAppender } = await import('../src/chain/audit-appender');
    const mine = new AuditAppender(f.dataSource, { region: 'us', origin: f.chain.origin, clock: f.clock, maxBatch: 50 });
    const other = new AuditAppender(f.dataSource, { region: 'us', origin: f.chain.origin, clock: f.clock, maxBatch: 7 });
    await mine.appendOne({ type: 'consent.granted', sourceEventId: 'warm-up', data: {} });
    const inOrder = (appended: ReadonlyArray<{ index: number }>) => {
      const indexes = appended.map((e) => e.index);
      expect(indexes).toEqual([...indexes].sort((a, b) => a - b));
    };

    // Alone: each batch is linked after the one still committing, and none of them is refused.
    const alone = await Promise.all([mine.append(entries(600, undefined, 'long')), mine.append(entries(120, undefined, 'short'))]);
    alone.forEach(inOrder);
    expect(mine.stats.checkedPathCommits).toBe(1);
    expect(mine.stats.fastPathCommits).toBeGreaterThanOrEqual(15);

    // Another process appending in between refuses predictions: the fallbacks keep the order.
    const raced = await Promise.all([
      mine.append(entries(400, undefined, 'raced')),
      other.append(entries(90, undefined, 'other')),
      mine.append(entries(60, undefined, 'raced-short')),
    ]);
    raced.forEach(inOrder);
    expect(new Set([...alone, ...raced].flat().map((e) => e.index)).size).toBe(1270);
    const rows = await stored();
    expect(rows.map((r) => Number(r.idx))).toEqual(Array.from({ length: 1272 }, (_, i) => i));
    expect(await f.chain.verifyChain.execute()).toMatchObject({ valid: true });
    await other.drain();
  });

  it('sends a batch again, still in order, when it reached the chain lock before the batch ahead of it', async () => {
    const { AuditAppender } = await import('../src/chain/audit-appender');
    const writer = new AuditAppender(f.dataSource, { region: 'us', origin: f.chain.origin, clock: f.clock, maxBatch: 20 });
    await writer.appendOne({ type: 'consent.granted', sourceEventId: 'overtaken-warm-up', data: {} });
    // The first fast statement is held back on its way to Postgres until the one linked after it
    // (sent while the first is under way) has been answered: it reached the lock first.
    const repository = (writer as unknown as { entries: { lockCheckAndInsertMany: (...args: unknown[]) => Promise<void> } }).entries;
    const send = repository.lockCheckAndInsertMany.bind(repository);
    let calls = 0;
    let secondAnswered!: () => void;
    const overtaken = new Promise<void>((resolve) => (secondAnswered = resolve));
    repository.lockCheckAndInsertMany = async (...args: unknown[]) => {
      const call = (calls += 1);
      if (call === 1) await overtaken;
      try {
        return await send(...args);
      } finally {
        if (call === 2) secondAnswered();
      }
    };
    const appended = await writer.append(entries(40, undefined, 'overtaken'));
    expect(appended.map((e) => e.index)).toEqual(Array.from({ length: 40 }, (_, i) => (appended[0]?.index ?? 0) + i));
    expect(calls).toBe(3); // the overtaking batch went once more after the batch ahead of it committed
    expect(writer.stats).toEqual({ checkedPathCommits: 1, fastPathCommits: 2 });
    expect(await f.chain.verifyChain.execute()).toMatchObject({ valid: true });
  });

  it('never leaves a gap when the chain went back to an earlier state (a restore) under a writer that knew a later head', async () => {
    const writer = f.chain.appender;
    await writer.append(entries(30, undefined, 'before-restore'));
    const head = Number((await stored()).at(-1)?.idx);
    // A restore from an earlier backup: the last ten entries are gone, the writer's head is stale.
    await f.dataSource.query('DELETE FROM audit.entries WHERE idx > $1', [head - 10]);
    const [next] = await writer.append(entries(1, undefined, 'after-restore'));
    expect(next).toMatchObject({ index: head - 9, duplicate: false });
    const rows = await stored();
    expect(rows.map((r) => Number(r.idx))).toEqual(Array.from({ length: rows.length }, (_, i) => i));
    expect(rows.at(-1)?.previous_hash).toBe(rows.at(-2)?.hash);
    expect(await f.chain.verifyChain.execute()).toMatchObject({ valid: true });
  });
});

/** Issue 9 Deliver 2: checkpoints reach a real HTTP witness; an outage never blocks appends. */
describe('checkpoints and the C2SP witness (loopback HTTP)', () => {
  let witness: LoopbackWitness;
  let f: ChainFixture;

  beforeAll(async () => {
    witness = await startLoopbackWitness('witness.test/w1', () => f.clock.now().getTime());
    f = await openChain(await createTestDatabase('audit_witness'), {
      AUDIT_WITNESS_URL: witness.url,
      AUDIT_WITNESS_KEY: witness.verifierKey,
      AUDIT_CHECKPOINT_INTERVAL_SECONDS: '900',
    });
    const key = await f.keys.activeKey();
    witness.trust(verifierKeyString(f.chain.origin, ed25519PublicKeyRaw(key.privateKey)));
  });
  afterAll(async () => {
    await f?.close();
    await witness?.close();
  });

  it('signs a checkpoint every interval of the injected clock and gets it cosigned, with consistency proofs after the first', async () => {
    await f.chain.appender.append(entries(10));
    await f.chain.scheduler.tick();
    const first = await f.chain.checkpoints.latest();
    expect(first).toMatchObject({ sequence: 1, treeSize: 11, witnessStatus: 'cosigned', witnessName: 'witness.test/w1' });
    // Not due yet: no second checkpoint.
    f.clock.advance(14 * 60_000);
    await f.chain.scheduler.tick();
    expect((await f.chain.checkpoints.latest())?.sequence).toBe(1);

    await f.chain.appender.append(entries(25, undefined, 'more'));
    f.clock.advance(60_000);
    await f.chain.scheduler.tick();
    const second = await f.chain.checkpoints.latest();
    expect(second).toMatchObject({ sequence: 2, treeSize: 36, witnessStatus: 'cosigned' });
    expect(witness.state.get(f.chain.origin)?.size).toBe(36);
    expect(witness.answers).toEqual([200, 200]);

    const verification = verifyCosignature(String(second?.cosignedNote), {
      name: witness.name,
      publicKey: parseWitnessKeyRaw(witness.verifierKey),
    });
    expect(verification).toEqual({ valid: true, timestamp: Math.floor(f.clock.now().getTime() / 1000) });
    expect(second?.cosignatureTimestamp).toBe(verification.valid ? verification.timestamp : -1);
    const body = openCheckpoint(String(second?.cosignedNote), [parseVerifierKey(String(second?.verifierKey))]).checkpoint;
    expect(body.extensions).toEqual([`head ${second?.headHash}`, `time ${Math.floor(f.clock.now().getTime() / 1000)}`]);
    expect(f.chain.witnessHealth.ok).toBe(true);
  });

  it('resynchronises on 409 text/x.tlog.size when its idea of the witness size is stale', async () => {
    await f.dataSource.query('UPDATE audit.witness_state SET cosigned_size = 0');
    await f.chain.appender.append(entries(3, undefined, 'stale'));
    f.clock.advance(15 * 60_000);
    await f.chain.scheduler.tick();
    expect(await f.chain.checkpoints.latest()).toMatchObject({ sequence: 3, treeSize: 39, witnessStatus: 'cosigned' });
    expect(witness.answers.slice(-2)).toEqual([409, 200]);
  });

  it('keeps appending while the witness is down, retries with backoff, and catches up', async () => {
    const down = await startLoopbackWitness('witness.test/w1');
    await down.close(); // a port nobody listens on
    const outage = await openChain(await createTestDatabase('audit_outage'), {
      AUDIT_WITNESS_URL: down.url,
      AUDIT_WITNESS_KEY: witness.verifierKey,
      AUDIT_WITNESS_TIMEOUT_MS: '500',
    });
    try {
      await outage.chain.appender.append(entries(5));
      await outage.chain.scheduler.tick();
      const pending = await outage.chain.checkpoints.latest();
      expect(pending).toMatchObject({ sequence: 1, witnessStatus: 'pending', witnessAttempts: 1 });
      expect(pending?.witnessNextAttemptAt?.getTime()).toBe(outage.clock.now().getTime() + 5_000);
      expect(outage.chain.witnessHealth).toMatchObject({ ok: false, consecutiveFailures: 1 });

      const appended = await outage.chain.appender.append(entries(50, undefined, 'during'));
      expect(appended).toHaveLength(50);
      // Backoff: not retried before it is due.
      await outage.chain.scheduler.tick();
      expect((await outage.chain.checkpoints.latest())?.witnessAttempts).toBe(1);
      outage.clock.advance(5_000);
      await outage.chain.scheduler.tick();
      const twice = await outage.chain.checkpoints.latest();
      expect(twice?.witnessAttempts).toBe(2);
      expect(twice?.witnessNextAttemptAt?.getTime()).toBe(outage.clock.now().getTime() + 10_000);
      expect((await outage.chain.verifyChain.execute()).valid).toBe(true);
    } finally {
      await outage.close();
    }
  });

  it('refuses a cosignature that does not verify with the configured witness key', async () => {
    const impostor = await startLoopbackWitness('witness.test/w1');
    const other = generateKeyPairSync('ed25519');
    const configuredKey = verifierKeyString('witness.test/w1', ed25519PublicKeyRaw(other.publicKey), SIGNATURE_TYPE_COSIGNATURE_V1);
    const victim = await openChain(await createTestDatabase('audit_impostor'), {
      AUDIT_WITNESS_URL: impostor.url,
      AUDIT_WITNESS_KEY: configuredKey,
    });
    try {
      impostor.trust(verifierKeyString(victim.chain.origin, ed25519PublicKeyRaw((await victim.keys.activeKey()).privateKey)));
      await victim.chain.scheduler.tick();
      expect(await victim.chain.checkpoints.latest()).toMatchObject({
        witnessStatus: 'pending',
        cosignedNote: null,
        witnessLastError: expect.stringContaining('witness cosignature rejected'),
      });
    } finally {
      await victim.close();
      await impostor.close();
    }
  });
});

function parseWitnessKeyRaw(vkey: string): Uint8Array {
  const material = /^[^+]*\+[0-9a-fA-F]{8}\+(.*)$/su.exec(vkey)?.[1] ?? '';
  return new Uint8Array(Buffer.from(material, 'base64').subarray(1));
}
