import nacl from 'tweetnacl';
import { generateEd25519KeyPair, type ActiveSigningKey } from '@svc/crypto';

/** An in-memory region key and its JWKS, as `/.well-known/jwks.json` would publish it. */
export function testSigningKey(kid = 'oap-us-v1'): { key: ActiveSigningKey; jwks: { keys: Array<Record<string, string>> } } {
  const pair = generateEd25519KeyPair();
  return {
    key: { kid, privateKey: pair.privateKey, publicJwk: pair.publicJwk },
    jwks: { keys: [{ kty: 'OKP', crv: 'Ed25519', x: pair.publicJwk.x, kid, alg: 'EdDSA', use: 'sig' }] },
  };
}

/**
 * Verifies a signed-flavor receipt with tweetnacl, an Ed25519 implementation independent of
 * node:crypto and jose: re-canonicalisation is done by the caller-supplied function so this file
 * shares nothing with the signer but the wire format (RFC 7515 signing input of a detached JWS).
 */
export function naclVerify(
  receiptText: string,
  jwks: { keys: Array<Record<string, string>> },
  canonicalise: (value: unknown) => string,
): boolean {
  const receipt = JSON.parse(receiptText) as { record: unknown; signature: { jws: string } };
  const [protectedB64, payloadB64, signatureB64] = receipt.signature.jws.split('.');
  if (payloadB64 !== '' || !protectedB64 || !signatureB64) return false;
  const header = JSON.parse(Buffer.from(protectedB64, 'base64url').toString('utf8')) as { kid: string; alg: string };
  const jwk = jwks.keys.find((k) => k.kid === header.kid);
  if (!jwk || header.alg !== 'EdDSA') return false;
  const signingInput = `${protectedB64}.${Buffer.from(canonicalise(receipt.record), 'utf8').toString('base64url')}`;
  return nacl.sign.detached.verify(
    Buffer.from(signingInput, 'ascii'),
    Buffer.from(signatureB64, 'base64url'),
    Buffer.from(jwk.x!, 'base64url'),
  );
}

/** Flips one byte of a JSON text inside a string value (so the result stays JSON and schema-valid). */
export function flipOneByte(text: string, marker: string): string {
  const index = text.indexOf(marker);
  if (index < 0) throw new Error(`marker ${marker} not found`);
  const position = index + marker.length - 1;
  const char = text[position] === 'a' ? 'b' : 'a';
  return `${text.slice(0, position)}${char}${text.slice(position + 1)}`;
}
