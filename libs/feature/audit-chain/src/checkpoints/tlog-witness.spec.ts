import { generateKeyPairSync } from 'node:crypto';
import { SIGNATURE_TYPE_COSIGNATURE_V1, SIGNATURE_TYPE_ED25519, ed25519PublicKeyRaw, verifierKeyString } from '@svc/merkle';
import { MAX_PROOF_LINES, addCheckpointRequestBody, cosignatureLinesFor, parseSizeResponse, parseWitnessKey } from './tlog-witness';

/** c2sp.org/tlog-witness, add-checkpoint. */
describe('tlog-witness add-checkpoint wire format', () => {
  const note = 'example.com/log\n3\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n\n\u2014 example.com/log AAAA\n';

  it('writes "old <size>", one base64 proof hash per line, an empty line, then the note', () => {
    const body = addCheckpointRequestBody(2, [new Uint8Array(32).fill(1), new Uint8Array(32).fill(2)], note);
    expect(body).toBe(`old 2\n${Buffer.alloc(32, 1).toString('base64')}\n${Buffer.alloc(32, 2).toString('base64')}\n\n${note}`);
  });

  it('writes "old 0" and no proof for a first submission', () => {
    expect(addCheckpointRequestBody(0, [], note)).toBe(`old 0\n\n${note}`);
  });

  it('refuses a proof with old size 0, a negative size and more than 63 proof lines', () => {
    expect(() => addCheckpointRequestBody(0, [new Uint8Array(32)], note)).toThrow('empty');
    expect(() => addCheckpointRequestBody(-1, [], note)).toThrow('non-negative');
    expect(() =>
      addCheckpointRequestBody(
        5,
        Array.from({ length: MAX_PROOF_LINES + 1 }, () => new Uint8Array(32)),
        note,
      ),
    ).toThrow('63');
  });

  it.each([
    ['0\n', 0],
    ['50\n', 50],
    ['50', undefined],
    ['050\n', undefined],
    ['', undefined],
    ['-1\n', undefined],
    ['99999999999999999\n', undefined],
  ])('parses the 409 text/x.tlog.size body %j as %p', (body, expected) => {
    expect(parseSizeResponse(body)).toBe(expected);
  });

  it('keeps only the configured witness lines of a response, and rejects non-signature bodies', () => {
    const body = '\u2014 witness.example/w1 AAAA\n\u2014 other.example/w2 BBBB\n';
    expect(cosignatureLinesFor(body, 'witness.example/w1')).toEqual(['\u2014 witness.example/w1 AAAA\n']);
    expect(cosignatureLinesFor(body, 'nobody')).toEqual([]);
    expect(cosignatureLinesFor('hello\n', 'witness.example/w1')).toBeUndefined();
    expect(cosignatureLinesFor('\u2014 witness.example/w1 AAAA', 'witness.example/w1')).toBeUndefined();
  });

  it('accepts a cosignature/v1 verifier key and refuses a plain Ed25519 one', () => {
    const raw = ed25519PublicKeyRaw(generateKeyPairSync('ed25519').publicKey);
    const witness = parseWitnessKey(verifierKeyString('witness.example/w1', raw, SIGNATURE_TYPE_COSIGNATURE_V1));
    expect(witness.name).toBe('witness.example/w1');
    expect(Buffer.from(witness.publicKey).equals(Buffer.from(raw))).toBe(true);
    expect(() => parseWitnessKey(verifierKeyString('witness.example/w1', raw, SIGNATURE_TYPE_ED25519))).toThrow('cosignature/v1');
  });
});
