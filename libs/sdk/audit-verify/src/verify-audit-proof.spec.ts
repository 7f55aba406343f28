import { generateKeyPairSync } from 'node:crypto';
import {
  GENESIS_PREVIOUS_HASH,
  chainHash,
  consistencyProof,
  ed25519PublicKeyRaw,
  formatCheckpoint,
  inclusionProof,
  merkleRoot,
  signNote,
  verifierKeyString,
} from '@svc/merkle';
import {
  AuditProofError,
  verifyConsistencyProof,
  verifyInclusionProof,
  type AuditCheckpointResponse,
  type InclusionProofResponse,
} from './verify-audit-proof';

const ORIGIN = 'us.svc.example/audit';
const { privateKey } = generateKeyPairSync('ed25519');
const VERIFIER_KEY = verifierKeyString(ORIGIN, ed25519PublicKeyRaw(privateKey));
const OTHER_KEY = verifierKeyString(ORIGIN, ed25519PublicKeyRaw(generateKeyPairSync('ed25519').privateKey));

/** A hash chain of `count` entries, as the audit log stores them. */
const entries = Array.from({ length: 11 }, (_, index) => ({
  id: `audit_rec_${index}`,
  index,
  canonical: `{"event":"consent.granted","n":${index}}`,
  previous_hash: '',
  hash: '',
}));
entries.forEach((entry, index) => {
  entry.previous_hash = index === 0 ? GENESIS_PREVIOUS_HASH : entries[index - 1]!.hash;
  entry.hash = chainHash(entry.previous_hash, entry.canonical);
});
const leaves = entries.map((entry) => new Uint8Array(Buffer.from(entry.hash, 'hex')));
const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');

function checkpoint(sequence: number, size: number): AuditCheckpointResponse {
  const rootHash = merkleRoot(leaves.slice(0, size));
  return {
    sequence,
    tree_size: size,
    root_hash: b64(rootHash),
    signed_note: signNote(formatCheckpoint({ origin: ORIGIN, size, rootHash }), { name: ORIGIN, privateKey }),
  };
}

function inclusion(index: number, size: number): InclusionProofResponse {
  return {
    entry: { ...entries[index]! },
    leaf_index: index,
    tree_size: size,
    proof: inclusionProof(index, leaves.slice(0, size)).map(b64),
    checkpoint: checkpoint(2, size),
  };
}

const refusal = (run: () => unknown): string => {
  try {
    run();
  } catch (error) {
    if (error instanceof AuditProofError) return error.code;
    throw error;
  }
  return 'accepted';
};

/** Issue 19 item 2: an outside auditor checks the API's audit proofs with the region's pinned key, without the service. */
describe('audit proof verification (SDK)', () => {
  it('accepts an inclusion proof of every entry in a signed checkpoint', () => {
    for (const index of [0, 5, 10]) {
      expect(verifyInclusionProof(inclusion(index, 11), { verifierKey: VERIFIER_KEY })).toEqual({
        entryId: `audit_rec_${index}`,
        index,
        origin: ORIGIN,
        treeSize: 11,
        checkpointSequence: 2,
      });
    }
  });

  it.each([
    [
      'a checkpoint signed by another key',
      () => verifyInclusionProof(inclusion(3, 11), { verifierKey: OTHER_KEY }),
      'checkpoint_unverified',
    ],
    ['an unusable verifier key', () => verifyInclusionProof(inclusion(3, 11), { verifierKey: 'not a key' }), 'verifier_key_invalid'],
    [
      'altered entry content',
      () =>
        verifyInclusionProof(
          { ...inclusion(3, 11), entry: { ...entries[3]!, canonical: '{"event":"consent.declined","n":3}' } },
          { verifierKey: VERIFIER_KEY },
        ),
      'entry_hash_mismatch',
    ],
    [
      'a proof for another position',
      () => verifyInclusionProof({ ...inclusion(3, 11), proof: inclusion(4, 11).proof }, { verifierKey: VERIFIER_KEY }),
      'proof_invalid',
    ],
    [
      'a served root that is not the signed one',
      () =>
        verifyInclusionProof(
          { ...inclusion(3, 11), checkpoint: { ...checkpoint(2, 11), root_hash: checkpoint(1, 10).root_hash } },
          { verifierKey: VERIFIER_KEY },
        ),
      'checkpoint_mismatch',
    ],
    ['not a proof object', () => verifyInclusionProof({} as InclusionProofResponse, { verifierKey: VERIFIER_KEY }), 'response_malformed'],
  ])('refuses %s', (_name, run, code) => {
    expect(refusal(run as () => unknown)).toBe(code);
  });

  it('accepts a consistency proof between two signed checkpoints and refuses a rewritten history', () => {
    const proof = consistencyProof(6, leaves).map(b64);
    expect(verifyConsistencyProof({ from: checkpoint(1, 6), to: checkpoint(2, 11), proof }, { verifierKey: VERIFIER_KEY })).toEqual({
      origin: ORIGIN,
      oldSize: 6,
      newSize: 11,
    });
    const rewritten = [...leaves];
    rewritten[2] = new Uint8Array(32);
    const forgedOld = merkleRoot(rewritten.slice(0, 6));
    const forged = {
      sequence: 1,
      tree_size: 6,
      root_hash: b64(forgedOld),
      signed_note: signNote(formatCheckpoint({ origin: ORIGIN, size: 6, rootHash: forgedOld }), { name: ORIGIN, privateKey }),
    };
    expect(refusal(() => verifyConsistencyProof({ from: forged, to: checkpoint(2, 11), proof }, { verifierKey: VERIFIER_KEY }))).toBe(
      'proof_invalid',
    );
  });
});
