/**
 * Issue 20 item 5: the witness client against a local C2SP tlog-witness stub (loopback HTTP) that
 * answers 404 (unknown log), 403 (log signature not trusted), 400 (malformed), 409
 * `text/x.tlog.size` (resync and retry), 422 (consistency proof rejected) and goes down. Every
 * refusal is recorded on the checkpoint and in the witness health, retried with backoff, and the
 * checkpoint is cosigned once the witness is fixed; during downtime checkpoints queue and are then
 * submitted in order.
 */
import { ed25519PublicKeyRaw, merkleRootFromHashes, verifierKeyString, verifyCosignature } from '@svc/merkle';
import { createTestDatabase, startLoopbackWitness, type LoopbackWitness } from '@svc/testing';
import { parseWitnessKey } from '../src/checkpoints/tlog-witness';
import { entries, openChain, type ChainFixture } from './support/chain-fixture';

const INTERVAL_MS = 15 * 60_000;

describe('witness client faults (C2SP tlog-witness stub on loopback)', () => {
  let witness: LoopbackWitness;
  let f: ChainFixture;
  let logKey: string;
  let batch = 0;

  beforeAll(async () => {
    witness = await startLoopbackWitness('witness.test/faults', () => f.clock.now().getTime());
    f = await openChain(await createTestDatabase('audit_witness_faults'), {
      AUDIT_WITNESS_URL: witness.url,
      AUDIT_WITNESS_KEY: witness.verifierKey,
      AUDIT_CHECKPOINT_INTERVAL_SECONDS: String(INTERVAL_MS / 1000),
      AUDIT_WITNESS_TIMEOUT_MS: '1000',
    });
    logKey = verifierKeyString(f.chain.origin, ed25519PublicKeyRaw((await f.keys.activeKey()).privateKey));
    witness.trust(logKey);
    // A first cosigned checkpoint, so later submissions carry consistency proofs.
    await f.chain.appender.append(entries(4, undefined, 'start'));
    await f.chain.scheduler.tick();
    const first = await f.chain.checkpoints.latest();
    expect({ s: first?.witnessStatus, e: first?.witnessLastError, errors: f.errors.map(String) }).toEqual({
      s: 'cosigned',
      e: null,
      errors: [],
    });
  });
  afterAll(async () => {
    await f?.close();
    await witness?.close();
  });

  /** Appends a few entries and lets one interval pass: the tick signs a checkpoint and submits. */
  async function nextInterval(): Promise<void> {
    batch += 1;
    await f.chain.appender.append(entries(3, undefined, `batch-${batch}`));
    f.clock.advance(INTERVAL_MS);
    await f.chain.scheduler.tick();
  }

  async function expectCosignedAfterBackoff(sequence: number): Promise<void> {
    const pending = await f.chain.checkpoints.bySequence(sequence);
    expect(pending?.witnessStatus).toBe('pending');
    f.clock.advance((pending?.witnessNextAttemptAt?.getTime() ?? 0) - f.clock.now().getTime());
    await f.chain.scheduler.tick();
    const done = await f.chain.checkpoints.bySequence(sequence);
    expect(done).toMatchObject({ witnessStatus: 'cosigned', witnessLastError: null });
    expect(verifyCosignature(String(done?.cosignedNote), parseWitnessKey(witness.verifierKey)).valid).toBe(true);
    expect(f.chain.witnessHealth).toMatchObject({ ok: true, consecutiveFailures: 0 });
  }

  it('404 (the witness does not know the log): recorded, retried with backoff, cosigned once known', async () => {
    witness.untrust(f.chain.origin);
    await nextInterval();
    const latest = await f.chain.checkpoints.latest();
    expect(latest).toMatchObject({
      witnessStatus: 'pending',
      witnessAttempts: 1,
      witnessLastError: expect.stringContaining('witness answered 404'),
    });
    expect(latest?.witnessNextAttemptAt?.getTime()).toBe(f.clock.now().getTime() + 5_000);
    expect(f.chain.witnessHealth).toMatchObject({ ok: false, consecutiveFailures: 1 });
    expect(witness.answers.at(-1)).toBe(404);
    witness.trust(logKey);
    await expectCosignedAfterBackoff(latest?.sequence ?? -1);
  });

  it('403 (the log signature does not verify for the witness): recorded, retried, cosigned once trusted', async () => {
    const stranger = verifierKeyString(f.chain.origin, new Uint8Array(32).fill(7));
    witness.trust(stranger);
    await nextInterval();
    const latest = await f.chain.checkpoints.latest();
    expect(latest).toMatchObject({ witnessStatus: 'pending', witnessLastError: expect.stringContaining('witness answered 403') });
    expect(witness.answers.at(-1)).toBe(403);
    witness.trust(logKey);
    await expectCosignedAfterBackoff(latest?.sequence ?? -1);
  });

  it('400 (malformed request, as the witness sees it): recorded, retried, cosigned on the next attempt', async () => {
    witness.scripted.push({ status: 400, text: 'malformed\n' });
    await nextInterval();
    const latest = await f.chain.checkpoints.latest();
    expect(latest).toMatchObject({ witnessStatus: 'pending', witnessLastError: expect.stringContaining('witness answered 400') });
    await expectCosignedAfterBackoff(latest?.sequence ?? -1);
  });

  it('422 (the witness rejects the consistency proof): recorded, never stored as cosigned, retried', async () => {
    const known = witness.state.get(f.chain.origin);
    if (!known) throw new Error('witness has no state');
    // The witness remembers a different root for the size it cosigned: our proof cannot match it.
    witness.state.set(f.chain.origin, { size: known.size, root: new Uint8Array(32).fill(1) });
    await nextInterval();
    const latest = await f.chain.checkpoints.latest();
    expect(latest).toMatchObject({
      witnessStatus: 'pending',
      cosignedNote: null,
      witnessLastError: expect.stringContaining('witness answered 422'),
    });
    expect(witness.answers.at(-1)).toBe(422);
    witness.state.set(f.chain.origin, known);
    await expectCosignedAfterBackoff(latest?.sequence ?? -1);
  });

  it('409 text/x.tlog.size, witness behind us (it lost state): resynchronises to its size and retries at once', async () => {
    const known = witness.state.get(f.chain.origin);
    if (!known) throw new Error('witness has no state');
    witness.state.delete(f.chain.origin);
    const before = witness.answers.length;
    await nextInterval();
    expect(witness.answers.slice(before)).toEqual([409, 200]);
    expect(witness.cosigned.at(-1)).toMatchObject({ oldSize: 0 });
    expect(await f.chain.checkpoints.latest()).toMatchObject({ witnessStatus: 'cosigned' });
  });

  it('409 text/x.tlog.size, witness ahead of an older pending checkpoint: that one is superseded, the newer one cosigned', async () => {
    witness.offline = true;
    await nextInterval();
    await nextInterval();
    const pending = (await f.chain.checkpoints.all()).filter((c) => c.witnessStatus === 'pending');
    expect(pending).toHaveLength(2);
    const [older, newer] = pending;
    // Meanwhile another instance got the newer one cosigned (the witness knows its size and root).
    const leaves = await f.chain.leaves.prefix(newer?.treeSize ?? 0);
    witness.state.set(f.chain.origin, { size: newer?.treeSize ?? 0, root: merkleRootFromHashes(leaves) });
    witness.offline = false;
    const before = witness.answers.length;
    f.clock.advance(INTERVAL_MS - 1);
    await f.chain.scheduler.tick();
    expect(witness.answers.slice(before)).toEqual([409, 200]);
    expect(await f.chain.checkpoints.bySequence(older?.sequence ?? -1)).toMatchObject({ witnessStatus: 'superseded' });
    expect(await f.chain.checkpoints.bySequence(newer?.sequence ?? -1)).toMatchObject({ witnessStatus: 'cosigned' });
  });

  it('witness down for several intervals: appends go on, checkpoints queue, then are submitted in order', async () => {
    const before = await f.chain.checkpoints.latest();
    witness.offline = true;
    for (let i = 0; i < 4; i += 1) await nextInterval();
    const queued = (await f.chain.checkpoints.all()).filter((c) => c.sequence > (before?.sequence ?? 0));
    expect(queued.map((c) => c.witnessStatus)).toEqual(['pending', 'pending', 'pending', 'pending']);
    // Only the oldest is tried (and backs off); the others wait behind it.
    expect(queued.map((c) => c.witnessAttempts)).toEqual([4, 0, 0, 0]);
    expect(f.chain.witnessHealth).toMatchObject({ ok: false, consecutiveFailures: 4 });
    expect((await f.chain.verifyChain.execute()).valid).toBe(true);

    witness.offline = false;
    const cosignedBefore = witness.cosigned.length;
    f.clock.advance(INTERVAL_MS - 1);
    await f.chain.scheduler.tick();
    const sizes = queued.map((c) => c.treeSize);
    expect(witness.cosigned.slice(cosignedBefore)).toEqual(
      sizes.map((size, i) => ({ oldSize: i === 0 ? (before?.treeSize ?? 0) : sizes[i - 1], size })),
    );
    const after = (await f.chain.checkpoints.all()).filter((c) => c.sequence > (before?.sequence ?? 0));
    expect(after.map((c) => c.witnessStatus)).toEqual(['cosigned', 'cosigned', 'cosigned', 'cosigned']);
    expect(f.chain.witnessHealth).toMatchObject({ ok: true, consecutiveFailures: 0 });
    expect(f.errors).toEqual([]);
  });
});
