import { createPrivateKey, createPublicKey, sign, verify } from 'node:crypto';
import { compactVerify } from 'jose';
import { ed25519PublicJwk, generateEd25519KeyPair, importEd25519PublicJwk, publicJwkThumbprint } from './ed25519';
import rfc8032 from './test-vectors/rfc8032-ed25519.json';
import rfc8037 from './test-vectors/rfc8037-ed25519-jose.json';

const hex = (value: string) => Buffer.from(value, 'hex');

function vectorPrivateKey() {
  return createPrivateKey({
    key: {
      kty: 'OKP',
      crv: 'Ed25519',
      d: hex(rfc8032.secret_key_hex).toString('base64url'),
      x: hex(rfc8032.public_key_hex).toString('base64url'),
    },
    format: 'jwk',
  });
}

describe('Ed25519 with node:crypto (RFC 8032 §7.1 TEST 1)', () => {
  it('derives the vector public key from the secret key', () => {
    expect(ed25519PublicJwk(vectorPrivateKey())).toEqual(rfc8032.public_jwk);
    expect(hex(rfc8032.public_key_hex).toString('base64url')).toBe(rfc8032.public_jwk.x);
  });

  it('signing the empty message gives the vector signature, which verifies', () => {
    const signature = sign(null, hex(rfc8032.message_hex), vectorPrivateKey());
    expect(signature.toString('hex')).toBe(rfc8032.signature_hex);
    expect(verify(null, hex(rfc8032.message_hex), importEd25519PublicJwk(rfc8032.public_jwk), signature)).toBe(true);
  });

  it('rejects the malleated signature (S replaced by S+L), which differs from the valid one only in S', () => {
    expect(rfc8032.malleated_must_verify).toBe(false);
    expect(rfc8032.malleated_signature_hex.slice(0, 64)).toBe(rfc8032.signature_hex.slice(0, 64));
    expect(rfc8032.malleated_signature_hex).not.toBe(rfc8032.signature_hex);
    const publicKey = createPublicKey(vectorPrivateKey());
    expect(verify(null, hex(rfc8032.message_hex), publicKey, hex(rfc8032.malleated_signature_hex))).toBe(false);
  });
});

describe('Ed25519 JOSE (RFC 8037 Appendix A)', () => {
  it('A.3: the JWK thumbprint of the public key', async () => {
    await expect(publicJwkThumbprint(rfc8037.public_jwk)).resolves.toBe(rfc8037.jwk_thumbprint_sha256);
  });

  it('A.3: kid, alg and use do not change the thumbprint', async () => {
    await expect(publicJwkThumbprint({ ...rfc8037.public_jwk, kid: 'oap-us-v1', alg: 'EdDSA', use: 'sig' })).resolves.toBe(
      rfc8037.jwk_thumbprint_sha256,
    );
  });

  it('refuses to thumbprint a private JWK', async () => {
    await expect(publicJwkThumbprint(rfc8037.private_jwk)).rejects.toThrow(TypeError);
  });

  it('A.4: the published JWS verifies against the imported public JWK', async () => {
    const { payload, protectedHeader } = await compactVerify(rfc8037.jws_compact, importEd25519PublicJwk(rfc8037.public_jwk), {
      algorithms: ['EdDSA'],
    });
    expect(protectedHeader).toEqual(rfc8037.jws_protected_header);
    expect(new TextDecoder().decode(payload)).toBe(rfc8037.jws_payload_utf8);
  });

  it('A.4: Ed25519 is deterministic, so signing the A.4 input reproduces the published signature', () => {
    const [header, payload, signature] = rfc8037.jws_compact.split('.');
    const key = createPrivateKey({ key: rfc8037.private_jwk, format: 'jwk' });
    expect(sign(null, Buffer.from(`${header}.${payload}`), key).toString('base64url')).toBe(signature);
  });
});

describe('generateEd25519KeyPair', () => {
  it('returns matching halves and a public JWK without d', () => {
    const pair = generateEd25519KeyPair();
    expect(pair.privateKey.asymmetricKeyType).toBe('ed25519');
    expect(Object.keys(pair.publicJwk).sort()).toEqual(['crv', 'kty', 'x']);
    const signature = sign(null, Buffer.from('m'), pair.privateKey);
    expect(verify(null, Buffer.from('m'), importEd25519PublicJwk(pair.publicJwk), signature)).toBe(true);
    expect(ed25519PublicJwk(pair.publicKey)).toEqual(pair.publicJwk);
  });

  it('generates distinct keys', () => {
    expect(generateEd25519KeyPair().publicJwk.x).not.toBe(generateEd25519KeyPair().publicJwk.x);
  });
});
