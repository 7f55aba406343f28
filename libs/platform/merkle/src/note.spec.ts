import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import nacl from 'tweetnacl';
import ed25519Vector from './test-vectors/rfc8032-ed25519.json';
import {
  NoteError,
  ed25519NoteVerifier,
  ed25519PublicKeyRaw,
  noteKeyId,
  openNote,
  parseNote,
  parseVerifierKey,
  signNote,
  verifierKeyString,
  type NoteSigner,
  type NoteVerifier,
} from './index';

// Vectors from golang.org/x/mod/sumdb/note (note.go package doc and note_test.go).
const PETER_VKEY = 'PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW';
const PETER_SKEY = 'PRIVATE+KEY+PeterNeumann+c74f20a3+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz';
const ENOCH_VKEY = 'EnochRoot+af0cfe78+ATtqJ7zOtqQtYqOo0CpvDXNlMhV3HeJDpjrASKGLWdop';
const TEXT = "If you think cryptography is the answer to your problem,\nthen you don't know what your problem is.\n";
const PETER_SIG = '\u2014 PeterNeumann x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n';
const ENOCH_SIG = '\u2014 EnochRoot rwz+eBzmZa0SO3NbfRGzPCpDckykFXSdeX+MNtCOXm2/5n2tiOHp+vAF1aGrQ5ovTG01oOTGwnWLox33WWd1RvMc+QQ=\n';
// From transparency-dev/formats note/note_cosigv1_test.go: a type 0x01 key whose base64 has a '+'.
const TEST_VKEY = 'TEST+7997405c+AQcC+FTVKf0jlTdHDY3rbevmnKxxPjigCXlVtGe6RIr6';

/** An Ed25519 private key from a 32-byte seed (PKCS#8 DER: fixed prefix then the seed). */
function privateKeyFromSeed(seed: Uint8Array): KeyObject {
  const prefix = Buffer.from('302e020100300506032b657004220420', 'hex');
  return createPrivateKey({ key: Buffer.concat([prefix, seed]), format: 'der', type: 'pkcs8' });
}

/** The signer encoded in a Go `PRIVATE+KEY+<name>+<hash>+<base64(0x01 || seed)>` string. */
function signerFromGoKey(skey: string): NoteSigner {
  const parts = skey.split('+');
  const name = parts[2];
  const bytes = Buffer.from(parts.slice(4).join('+'), 'base64');
  expect(bytes[0]).toBe(0x01);
  return { name: name!, privateKey: privateKeyFromSeed(bytes.subarray(1)) };
}

function newSigner(name: string): NoteSigner & { publicKey: KeyObject } {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  return { name, privateKey, publicKey };
}

function reasonOf(fn: () => unknown): string | undefined {
  try {
    fn();
    return undefined;
  } catch (error) {
    return error instanceof NoteError ? error.reason : `not a NoteError: ${String(error)}`;
  }
}

describe('key ids and verifier keys', () => {
  it('matches the Go sumdb/note PeterNeumann key (c74f20a3) from its private seed', () => {
    const signer = signerFromGoKey(PETER_SKEY);
    const raw = ed25519PublicKeyRaw(signer.privateKey);
    expect(noteKeyId('PeterNeumann', raw)).toBe(0xc74f20a3);
    expect(verifierKeyString('PeterNeumann', raw)).toBe(PETER_VKEY);
  });

  it.each([
    [PETER_VKEY, 'PeterNeumann', 0xc74f20a3],
    [ENOCH_VKEY, 'EnochRoot', 0xaf0cfe78],
    [TEST_VKEY, 'TEST', 0x7997405c],
  ])('parses %s and re-encodes it identically', (vkey, name, keyId) => {
    const verifier = parseVerifierKey(vkey);
    expect(verifier.name).toBe(name);
    expect(verifier.keyId).toBe(keyId);
    const raw = new Uint8Array(Buffer.from(vkey.split('+').slice(2).join('+'), 'base64').subarray(1));
    expect(verifierKeyString(name, raw)).toBe(vkey);
  });

  it('rejects every truncation and every single-character change of a vkey (as Go’s TestNewVerifier)', () => {
    const accepted: string[] = [];
    for (let i = 0; i <= PETER_VKEY.length; i++) {
      for (let j = i + 1; j <= PETER_VKEY.length; j++) {
        if (i === 0 && j === PETER_VKEY.length) continue;
        const candidate = PETER_VKEY.slice(i, j);
        if (reasonOf(() => parseVerifierKey(candidate)) === undefined) accepted.push(candidate);
      }
    }
    for (let i = 0; i < PETER_VKEY.length; i++) {
      const candidate = PETER_VKEY.slice(0, i) + String.fromCharCode(PETER_VKEY.charCodeAt(i) + 1) + PETER_VKEY.slice(i + 1);
      if (reasonOf(() => parseVerifierKey(candidate)) === undefined) accepted.push(candidate);
    }
    expect(accepted).toEqual([]);
    expect(reasonOf(() => parseVerifierKey('PeterNeumann+cc469956+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TWBADKEY=='))).toBe(
      'invalid_key',
    );
    expect(reasonOf(() => parseVerifierKey('PeterNeumann+173116ae+ZRpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW'))).toBe(
      'unsupported_key_type',
    );
    expect(reasonOf(() => parseVerifierKey('PeterNeumann+c74f20a4+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW'))).toBe('key_id_mismatch');
  });

  it('rejects invalid key names', () => {
    const raw = ed25519PublicKeyRaw(newSigner('x').publicKey);
    for (const name of ['', 'a b', 'a+b', 'a\tb', 'a\u00a0b', 'a\u2003b', 'a\uD800']) {
      expect(reasonOf(() => verifierKeyString(name, raw))).toBe('invalid_name');
    }
    expect(reasonOf(() => verifierKeyString('ok', raw.subarray(1)))).toBe('invalid_key');
  });
});

describe('signNote', () => {
  it('reproduces the Go sumdb/note signed example byte for byte', () => {
    expect(signNote(TEXT, signerFromGoKey(PETER_SKEY))).toBe(`${TEXT}\n${PETER_SIG}`);
  });

  it('produces an Ed25519 signature an independent implementation (tweetnacl) accepts', () => {
    const signer = newSigner('log.example/a');
    const body = 'log.example/a\n3\nrootrootrootrootrootrootrootrootrootrootroo=\n';
    const note = parseNote(signNote(body, signer));
    const [sig] = note.signatures;
    expect(sig?.keyId).toBe(noteKeyId('log.example/a', ed25519PublicKeyRaw(signer.publicKey)));
    expect(
      nacl.sign.detached.verify(new Uint8Array(Buffer.from(body, 'utf8')), sig!.signature, ed25519PublicKeyRaw(signer.publicKey)),
    ).toBe(true);
  });

  it('signs with several keys, in order', () => {
    const a = newSigner('a.example');
    const b = newSigner('b.example');
    const note = signNote('hello\n', [a, b]);
    expect(parseNote(note).signatures.map((s) => s.name)).toEqual(['a.example', 'b.example']);
    const opened = openNote(note, [ed25519NoteVerifier('a.example', a.publicKey), ed25519NoteVerifier('b.example', b.publicKey)]);
    expect(opened.verified.map((s) => s.name)).toEqual(['a.example', 'b.example']);
  });

  it.each(['', 'abc', 'a\rb\n', 'tab\there\n', 'bad \uD800\n'])('refuses the note text %j', (body) => {
    expect(reasonOf(() => signNote(body, newSigner('a.example')))).toBe('malformed_body');
  });

  it('refuses invalid signer names and non-Ed25519 keys', () => {
    expect(reasonOf(() => signNote('x\n', { ...newSigner('a b') }))).toBe('invalid_name');
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    expect(reasonOf(() => signNote('x\n', { name: 'ec', privateKey }))).toBe('invalid_key');
  });
});

describe('openNote', () => {
  const peter = parseVerifierKey(PETER_VKEY);
  const enoch = parseVerifierKey(ENOCH_VKEY);
  const both = `${TEXT}\n${PETER_SIG}${ENOCH_SIG}`;

  it('verifies the Go example and reports the signature from an unknown key as unverified', () => {
    const opened = openNote(both, [peter]);
    expect(opened.body).toBe(TEXT);
    expect(opened.verified.map((s) => [s.name, s.keyId])).toEqual([['PeterNeumann', 0xc74f20a3]]);
    expect(opened.unverified.map((s) => [s.name, s.keyId])).toEqual([['EnochRoot', 0xaf0cfe78]]);
  });

  it('verifies both Go signatures when both keys are known', () => {
    const opened = openNote(both, [peter, enoch]);
    expect(opened.verified.map((s) => s.name)).toEqual(['PeterNeumann', 'EnochRoot']);
    expect(opened.unverified).toEqual([]);
  });

  it('rejects a note signed only by unknown keys, listing them', () => {
    try {
      openNote(both, []);
      throw new Error('openNote accepted a note without known signers');
    } catch (error) {
      expect(error).toBeInstanceOf(NoteError);
      expect((error as NoteError).reason).toBe('unverified_note');
      expect((error as NoteError).unverified?.map((s) => s.name)).toEqual(['PeterNeumann', 'EnochRoot']);
    }
  });

  it('ignores a key that shares the name but not the key id (or the reverse)', () => {
    const impostor = newSigner('PeterNeumann');
    const sameName = ed25519NoteVerifier('PeterNeumann', impostor.publicKey);
    expect(reasonOf(() => openNote(both, [sameName]))).toBe('unverified_note');
    const sameId: NoteVerifier = { name: 'Someone', keyId: 0xc74f20a3, verify: () => true };
    expect(reasonOf(() => openNote(both, [sameId]))).toBe('unverified_note');
  });

  it('rejects the whole note when a known key’s signature fails', () => {
    const flippedBody = `${TEXT.replace('answer', 'answeR')}\n${PETER_SIG}${ENOCH_SIG}`;
    expect(reasonOf(() => openNote(flippedBody, [peter]))).toBe('invalid_signature');
    const corrupt = `${TEXT}\n${PETER_SIG.slice(0, 60)}ABCD${PETER_SIG.slice(60)}`;
    expect(reasonOf(() => openNote(corrupt, [peter]))).toBe('invalid_signature');
    const throwing: NoteVerifier = {
      name: 'PeterNeumann',
      keyId: 0xc74f20a3,
      verify: () => {
        throw new Error('boom');
      },
    };
    expect(reasonOf(() => openNote(both, [throwing]))).toBe('invalid_signature');
  });

  it('detects every single flipped byte of a freshly signed body', () => {
    const signer = newSigner('log.example');
    const verifier = ed25519NoteVerifier('log.example', signer.publicKey);
    const body = 'log.example\n42\nAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n';
    const note = signNote(body, signer);
    expect(openNote(note, [verifier]).verified).toHaveLength(1);
    for (let i = 0; i < body.length - 1; i++) {
      if (body[i] === '\n') continue;
      const flippedChar = String.fromCharCode(body.charCodeAt(i) ^ 0x01);
      const tampered = note.slice(0, i) + flippedChar + note.slice(i + 1);
      expect(reasonOf(() => openNote(tampered, [verifier]))).toMatch(/^(invalid_signature|malformed_note)$/);
    }
  });

  it('rejects ambiguous verifier lists only when the ambiguous key signed', () => {
    expect(reasonOf(() => openNote(`${TEXT}\n${ENOCH_SIG}`, [enoch, peter, enoch]))).toBe('ambiguous_key');
    expect(openNote(`${TEXT}\n${PETER_SIG}`, [enoch, peter, enoch]).verified).toHaveLength(1);
  });

  it('drops repeated signatures as Go does', () => {
    const enochABCD = `${ENOCH_SIG.slice(0, 60)}ABCD${ENOCH_SIG.slice(60)}`;
    const opened = openNote(`${TEXT}\n${PETER_SIG}${PETER_SIG}${ENOCH_SIG}${ENOCH_SIG}${enochABCD}`, [peter]);
    expect(opened.verified).toHaveLength(1);
    expect(opened.unverified).toHaveLength(2);
  });

  it.each([
    ['no signatures', TEXT],
    ['no signature after the blank line', `${TEXT}\n`],
    ['a signature line without its newline', `${TEXT}\n${PETER_SIG.slice(0, -1)}`],
    ['a control character', `\x01${TEXT}\n${PETER_SIG}`],
    ['an unpaired surrogate', `\uD800${TEXT}\n${PETER_SIG}`],
    [
      'a name with a space',
      `${TEXT}\n\u2014 Bad Name x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n`,
    ],
    ['a trailing line that is not a signature', `${TEXT}\n${PETER_SIG}Unexpected line.\n`],
    ['a hyphen instead of an em dash', `${TEXT}\n${PETER_SIG.replace('\u2014', '-')}`],
    ['an en dash instead of an em dash', `${TEXT}\n${PETER_SIG.replace('\u2014', '\u2013')}`],
    ['unpadded base64', `${TEXT}\n${PETER_SIG.replace('=\n', '\n')}`],
    ['URL-safe base64', `${TEXT}\n${ENOCH_SIG.replace(/\+/g, '-')}`],
    ['a signature shorter than 5 bytes', `${TEXT}\n\u2014 PeterNeumann x08goA==\n`],
    ['101 signatures', `${TEXT}\n${PETER_SIG.repeat(101)}`],
  ])('rejects a note with %s as malformed', (_, note) => {
    expect(reasonOf(() => openNote(note, [peter]))).toBe('malformed_note');
  });

  it('accepts 100 signatures and note text containing blank lines', () => {
    expect(openNote(`${TEXT}\n${PETER_SIG.repeat(100)}`, [peter]).verified).toHaveLength(1);
    const signer = newSigner('poet.example');
    const poem = 'first stanza\n\nsecond stanza\n';
    const opened = openNote(signNote(poem, signer), [ed25519NoteVerifier('poet.example', signer.publicKey)]);
    expect(opened.body).toBe(poem);
  });
});

describe('Ed25519 verification (RFC 8032 §7.1 TEST 1)', () => {
  const publicKey = new Uint8Array(Buffer.from(ed25519Vector.public_key_hex, 'hex'));
  const verifier = ed25519NoteVerifier('rfc8032', createPublicKey({ key: ed25519Vector.public_jwk, format: 'jwk' }));
  const message = new Uint8Array(Buffer.from(ed25519Vector.message_hex, 'hex'));

  it('accepts the published signature and rejects the S+L malleated one', () => {
    expect(verifier.verify(message, new Uint8Array(Buffer.from(ed25519Vector.signature_hex, 'hex')))).toBe(true);
    expect(verifier.verify(message, new Uint8Array(Buffer.from(ed25519Vector.malleated_signature_hex, 'hex')))).toBe(
      ed25519Vector.malleated_must_verify,
    );
    expect(ed25519PublicKeyRaw(createPublicKey({ key: ed25519Vector.public_jwk, format: 'jwk' }))).toEqual(publicKey);
  });

  it('returns false for signatures of the wrong length instead of throwing', () => {
    const signature = new Uint8Array(Buffer.from(ed25519Vector.signature_hex, 'hex'));
    expect(verifier.verify(message, signature.subarray(0, 63))).toBe(false);
    expect(verifier.verify(message, new Uint8Array([...signature, 0]))).toBe(false);
    expect(verifier.verify(message, new Uint8Array(0))).toBe(false);
  });
});
