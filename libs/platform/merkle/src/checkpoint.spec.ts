import { generateKeyPairSync } from 'node:crypto';
import {
  NoteError,
  ed25519NoteVerifier,
  formatCheckpoint,
  inclusionProof,
  leafHash,
  merkleRoot,
  openCheckpoint,
  parseCheckpoint,
  signNote,
  verifyInclusion,
} from './index';

// The example of https://c2sp.org/tlog-checkpoint.
const EXAMPLE_BODY = 'example.com/behind-the-sofa\n20852163\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n';
const EXAMPLE_ROOT = new Uint8Array(Buffer.from('CsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=', 'base64'));

function reasonOf(fn: () => unknown): string | undefined {
  try {
    fn();
    return undefined;
  } catch (error) {
    return error instanceof NoteError ? error.reason : `not a NoteError: ${String(error)}`;
  }
}

describe('checkpoints (c2sp.org/tlog-checkpoint)', () => {
  it('formats the specification’s example body exactly', () => {
    expect(formatCheckpoint({ origin: 'example.com/behind-the-sofa', size: 20852163, rootHash: EXAMPLE_ROOT })).toBe(EXAMPLE_BODY);
  });

  it('parses the example body back', () => {
    const parsed = parseCheckpoint(EXAMPLE_BODY);
    expect(parsed.origin).toBe('example.com/behind-the-sofa');
    expect(parsed.size).toBe(20852163);
    expect(Buffer.from(parsed.rootHash).equals(Buffer.from(EXAMPLE_ROOT))).toBe(true);
    expect(parsed.extensions).toEqual([]);
  });

  it('round-trips the empty tree and extension lines', () => {
    const checkpoint = { origin: 'audit.example/eu', size: 0, rootHash: merkleRoot([]), extensions: ['ext one', 'ext-two'] };
    const text = formatCheckpoint(checkpoint);
    expect(text).toBe('audit.example/eu\n0\n47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=\next one\next-two\n');
    const parsed = parseCheckpoint(text);
    expect(parsed.size).toBe(0);
    expect(parsed.extensions).toEqual(['ext one', 'ext-two']);
    expect(formatCheckpoint(parsed)).toBe(text);
  });

  it.each([
    ['no final newline', EXAMPLE_BODY.slice(0, -1)],
    ['two lines', 'example.com/log\n5\n'],
    ['an empty origin', `\n5\n${EXAMPLE_BODY.split('\n')[2]}\n`],
    ['a size with a leading zero', EXAMPLE_BODY.replace('20852163', '020852163')],
    ['a negative size', EXAMPLE_BODY.replace('20852163', '-1')],
    ['an exponent size', EXAMPLE_BODY.replace('20852163', '2e7')],
    ['a size with a plus sign', EXAMPLE_BODY.replace('20852163', '+5')],
    ['a size beyond 2^53', EXAMPLE_BODY.replace('20852163', '9007199254740993')],
    ['a 31-byte root', EXAMPLE_BODY.replace('CsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=', Buffer.alloc(31).toString('base64'))],
    ['an unpadded root', EXAMPLE_BODY.replace('q2I=', 'q2I')],
    ['a non-canonical root', EXAMPLE_BODY.replace('q2I=', 'q2J=')],
    ['an empty extension line', `${EXAMPLE_BODY}\n`],
    ['a carriage return', EXAMPLE_BODY.replace('sofa', 'sofa\r')],
  ])('rejects a body with %s', (_, body) => {
    expect(reasonOf(() => parseCheckpoint(body))).toBe('malformed_checkpoint');
  });

  it('refuses to format malformed checkpoints', () => {
    const rootHash = EXAMPLE_ROOT;
    expect(reasonOf(() => formatCheckpoint({ origin: '', size: 1, rootHash }))).toBe('malformed_checkpoint');
    expect(reasonOf(() => formatCheckpoint({ origin: 'a\nb', size: 1, rootHash }))).toBe('malformed_checkpoint');
    expect(reasonOf(() => formatCheckpoint({ origin: 'a', size: -1, rootHash }))).toBe('malformed_checkpoint');
    expect(reasonOf(() => formatCheckpoint({ origin: 'a', size: 1.5, rootHash }))).toBe('malformed_checkpoint');
    expect(reasonOf(() => formatCheckpoint({ origin: 'a', size: 1, rootHash: rootHash.subarray(1) }))).toBe('malformed_checkpoint');
    expect(reasonOf(() => formatCheckpoint({ origin: 'a', size: 1, rootHash, extensions: [''] }))).toBe('malformed_checkpoint');
  });

  it('opens a signed checkpoint whose root then anchors inclusion proofs', () => {
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    const entries = ['a', 'b', 'c', 'd', 'e'].map((s) => new Uint8Array(Buffer.from(s)));
    const body = formatCheckpoint({ origin: 'audit.example/eu', size: entries.length, rootHash: merkleRoot(entries) });
    const note = signNote(body, { name: 'audit.example/eu', privateKey });

    const { checkpoint, verified } = openCheckpoint(note, [ed25519NoteVerifier('audit.example/eu', publicKey)]);
    expect(verified.map((s) => s.name)).toEqual(['audit.example/eu']);
    expect(checkpoint.size).toBe(5);
    expect(verifyInclusion(3, checkpoint.size, leafHash(entries[3]!), inclusionProof(3, entries), checkpoint.rootHash)).toBe(true);
    expect(verifyInclusion(3, checkpoint.size, leafHash(entries[2]!), inclusionProof(3, entries), checkpoint.rootHash)).toBe(false);

    const otherKey = generateKeyPairSync('ed25519').publicKey;
    expect(reasonOf(() => openCheckpoint(note, [ed25519NoteVerifier('audit.example/eu', otherKey)]))).toBe('unverified_note');
    const notACheckpoint = signNote('hello\n', { name: 'audit.example/eu', privateKey });
    expect(reasonOf(() => openCheckpoint(notACheckpoint, [ed25519NoteVerifier('audit.example/eu', publicKey)]))).toBe(
      'malformed_checkpoint',
    );
  });
});
