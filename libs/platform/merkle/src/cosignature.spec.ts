import { generateKeyPairSync } from 'node:crypto';
import nacl from 'tweetnacl';
import {
  NoteError,
  SIGNATURE_TYPE_COSIGNATURE_V1,
  cosignNote,
  cosignatureMessage,
  cosignatureTimestamp,
  cosignatureVerifier,
  ed25519NoteVerifier,
  ed25519PublicKeyRaw,
  formatSignatureLine,
  noteKeyId,
  openNote,
  parseNote,
  parseVerifierKey,
  signNote,
  verifierKeyString,
  verifyCosignature,
} from './index';

// The example checkpoint and cosigned note of https://c2sp.org/tlog-cosignature.
const BODY = 'example.com/behind-the-sofa\n20852163\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n';
const SPEC_NOTE =
  `${BODY}\n` +
  '\u2014 example.com/behind-the-sofa Az3grlgtzPICa5OS8npVmf1Myq/5IZniMp+ZJurmRDeOoRDe4URYN7u5/Zhcyv2q1gGzGku9nTo+zyWE+xeMcTOAYQ8=\n' +
  '\u2014 witness.example.com/w1 jWbPPwAAAABkGFDLEZMHwSRaJNiIDoe9DYn/zXcrtPHeolMI5OWXEhZCB9dlrDJsX3b2oyin1nPZqhf5nNo0xUe+mbIUBkBIfZ+qnA==\n';
const SPEC_MESSAGE = `cosignature/v1\ntime 1679315147\n${BODY}`;
// transparency-dev/formats note/note_cosigv1_test.go: a native type 0x04 verifier key.
const REMORA_VKEY = 'remora.n621.de+da77ade7+BOvN63jn/bLvkieywe8R6UYAtVtNbZpXh34x7onlmtw2';

function keyPair(name: string) {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  return { name, privateKey, publicKey, raw: ed25519PublicKeyRaw(publicKey) };
}

function reasonOf(fn: () => unknown): string | undefined {
  try {
    fn();
    return undefined;
  } catch (error) {
    return error instanceof NoteError ? error.reason : `not a NoteError: ${String(error)}`;
  }
}

const log = keyPair('example.com/behind-the-sofa');
const witness = keyPair('witness.example/w1');
const logNote = signNote(BODY, log);

describe('cosignature/v1 format (c2sp.org/tlog-cosignature)', () => {
  it('computes type 0x04 key ids (transparency-dev remora vector)', () => {
    const verifier = parseVerifierKey(REMORA_VKEY);
    expect(verifier.keyId).toBe(0xda77ade7);
    const raw = new Uint8Array(Buffer.from(REMORA_VKEY.split('+')[2]!, 'base64').subarray(1));
    expect(noteKeyId('remora.n621.de', raw, SIGNATURE_TYPE_COSIGNATURE_V1)).toBe(0xda77ade7);
    expect(verifierKeyString('remora.n621.de', raw, SIGNATURE_TYPE_COSIGNATURE_V1)).toBe(REMORA_VKEY);
    expect(noteKeyId('remora.n621.de', raw)).not.toBe(0xda77ade7);
  });

  it('builds the signed message of the specification example', () => {
    expect(Buffer.from(cosignatureMessage(BODY, 1679315147)).toString('utf8')).toBe(SPEC_MESSAGE);
  });

  it('reads the timestamps of published cosignature lines', () => {
    const [logSig, witnessSig] = parseNote(SPEC_NOTE).signatures;
    expect(cosignatureTimestamp(witnessSig!)).toBe(1679315147);
    expect(cosignatureTimestamp(logSig!)).toBeUndefined();
    const tdev = Buffer.from(
      'ZGhGuQAAAABm/qTPeyKXD+R2rzyQsxPiP8mXum7qq/iF0u4vanlqJyocWODBt97w9uL+8qT7S5gxEHWWOworDcFiEBYJXORmnFBOBA==',
      'base64',
    );
    expect(cosignatureTimestamp({ name: 'w', keyId: tdev.readUInt32BE(0), signature: new Uint8Array(tdev.subarray(4)) })).toBe(1727964367);
  });

  it('signs keyid || big-endian timestamp || Ed25519 over the exact spec message (checked with tweetnacl)', () => {
    const cosigned = cosignNote(logNote, witness, 1679315147);
    const sig = parseNote(cosigned).signatures.find((s) => s.name === witness.name)!;
    expect(sig.keyId).toBe(noteKeyId(witness.name, witness.raw, 0x04));
    expect(Buffer.from(sig.signature.subarray(0, 8)).toString('hex')).toBe('000000006418' + '50cb');
    const message = new Uint8Array(Buffer.from(SPEC_MESSAGE, 'utf8'));
    expect(nacl.sign.detached.verify(message, sig.signature.subarray(8), witness.raw)).toBe(true);
  });
});

describe('cosignNote and verifyCosignature', () => {
  it('adds a cosignature next to the log signature; both verify through openNote', () => {
    const cosigned = cosignNote(logNote, witness, 1_700_000_000);
    expect(cosigned.startsWith(logNote)).toBe(true);
    expect(verifyCosignature(cosigned, witness)).toEqual({ valid: true, timestamp: 1_700_000_000 });
    const opened = openNote(cosigned, [ed25519NoteVerifier(log.name, log.publicKey), cosignatureVerifier(witness.name, witness.publicKey)]);
    expect(opened.verified.map((s) => s.name)).toEqual([log.name, witness.name]);
    const fromVkey = parseVerifierKey(verifierKeyString(witness.name, witness.raw, SIGNATURE_TYPE_COSIGNATURE_V1));
    expect(openNote(cosigned, [fromVkey]).verified.map((s) => s.name)).toEqual([witness.name]);
  });

  it('cosigns bare checkpoint text and replaces its own earlier cosignature', () => {
    const first = cosignNote(BODY, witness, 100);
    expect(parseNote(first).signatures).toHaveLength(1);
    const second = cosignNote(first, witness, 200);
    expect(parseNote(second).signatures).toHaveLength(1);
    expect(verifyCosignature(second, witness)).toEqual({ valid: true, timestamp: 200 });
    const other = keyPair('witness.example/w2');
    const both = cosignNote(cosignNote(logNote, witness, 300), other, 400);
    expect(parseNote(both).signatures.map((s) => s.name)).toEqual([log.name, witness.name, other.name]);
    expect(verifyCosignature(both, other)).toEqual({ valid: true, timestamp: 400 });
  });

  it('fails when the body, timestamp or signature is tampered', () => {
    const cosigned = cosignNote(logNote, witness, 1_700_000_000);
    const otherBody = cosigned.replace('20852163', '20852164');
    expect(verifyCosignature(otherBody, witness)).toEqual({ valid: false, reason: 'invalid_signature' });

    const { body, signatures } = parseNote(cosigned);
    const witnessSig = signatures.find((s) => s.name === witness.name)!;
    const retimed = new Uint8Array(witnessSig.signature);
    retimed[7] = retimed[7]! ^ 0x01;
    const retimedNote = `${body}\n${formatSignatureLine(signatures[0]!)}${formatSignatureLine({ ...witnessSig, signature: retimed })}`;
    expect(verifyCosignature(retimedNote, witness)).toEqual({ valid: false, reason: 'invalid_signature' });
    expect(reasonOf(() => openNote(retimedNote, [cosignatureVerifier(witness.name, witness.publicKey)]))).toBe('invalid_signature');

    const hugeTime = new Uint8Array(witnessSig.signature);
    hugeTime.fill(0xff, 0, 8);
    const hugeNote = `${body}\n${formatSignatureLine({ ...witnessSig, signature: hugeTime })}`;
    expect(verifyCosignature(hugeNote, witness)).toEqual({ valid: false, reason: 'invalid_signature' });
  });

  it('does not accept other keys or plain note signatures as the witness’s cosignature', () => {
    const stranger = keyPair(witness.name);
    expect(verifyCosignature(cosignNote(logNote, stranger, 5), witness)).toEqual({ valid: false, reason: 'absent' });
    // A type 0x01 signature by the witness key has another key id, and signs another message.
    const plain = signNote(BODY, witness);
    expect(verifyCosignature(plain, witness)).toEqual({ valid: false, reason: 'absent' });
    expect(verifyCosignature(logNote, witness)).toEqual({ valid: false, reason: 'absent' });
  });

  it('rejects notes that are not checkpoints and text that is not a note, without throwing', () => {
    const hello = cosignatureVerifier(witness.name, witness.publicKey);
    expect(hello.verify(new Uint8Array(Buffer.from('hello\n')), new Uint8Array(72))).toBe(false);
    expect(verifyCosignature(signNote('hello\n', log), witness)).toEqual({ valid: false, reason: 'not_a_checkpoint' });
    expect(verifyCosignature('not a note', witness)).toEqual({ valid: false, reason: 'malformed_note' });
    expect(reasonOf(() => cosignNote('hello\n', witness, 1))).toBe('malformed_checkpoint');
    expect(reasonOf(() => cosignNote(`${BODY}\n`, witness, 1))).toBe('malformed_note');
  });

  it.each([-1, 1.5, 2 ** 53, Number.NaN])('refuses the timestamp %p', (timestamp) => {
    expect(reasonOf(() => cosignNote(logNote, witness, timestamp))).toBe('invalid_timestamp');
  });
});
