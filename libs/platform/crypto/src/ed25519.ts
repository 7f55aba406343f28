import { createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { calculateJwkThumbprint, type JWK } from 'jose';

/** The public half of an Ed25519 key as a JWK (RFC 8037 §2): `x` is the 32-byte key, base64url. */
export interface Ed25519PublicJwk {
  kty: 'OKP';
  crv: 'Ed25519';
  x: string;
}

/** A freshly generated Ed25519 key pair. */
export interface Ed25519KeyPair {
  privateKey: KeyObject;
  publicKey: KeyObject;
  publicJwk: Ed25519PublicJwk;
}

/** Generates an Ed25519 key pair with node:crypto (OS CSPRNG). */
export function generateEd25519KeyPair(): Ed25519KeyPair {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  return { privateKey, publicKey, publicJwk: ed25519PublicJwk(publicKey) };
}

/**
 * The RFC 8037 public JWK (`kty`, `crv`, `x` only) of an Ed25519 key; given a private key, of its
 * public half. Never carries `d`. Throws TypeError for a non-Ed25519 key.
 */
export function ed25519PublicJwk(key: KeyObject): Ed25519PublicJwk {
  if (key.asymmetricKeyType !== 'ed25519') throw new TypeError(`Expected an Ed25519 key, got ${key.asymmetricKeyType ?? key.type}`);
  const publicKey = key.type === 'private' ? createPublicKey(key) : key;
  const jwk = publicKey.export({ format: 'jwk' });
  if (typeof jwk.x !== 'string') throw new TypeError('Ed25519 key exported without x');
  return { kty: 'OKP', crv: 'Ed25519', x: jwk.x };
}

/**
 * Imports the public part (`kty`, `crv`, `x`) of an RFC 8037 JWK as a KeyObject; any `d` is
 * ignored. Throws TypeError unless it is an Ed25519 key with a 32-byte `x`.
 */
export function importEd25519PublicJwk(jwk: JWK): KeyObject {
  if (jwk.kty !== 'OKP' || jwk.crv !== 'Ed25519' || typeof jwk.x !== 'string' || Buffer.from(jwk.x, 'base64url').length !== 32) {
    throw new TypeError('Not an Ed25519 public JWK');
  }
  return createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: jwk.x }, format: 'jwk' });
}

/**
 * RFC 7638 JWK thumbprint (SHA-256, base64url, 43 characters) of a public JWK, computed over its
 * required members only — the DPoP `jkt` (RFC 9449 §6.1). Members such as `kid`, `alg` or `use`
 * do not change it. Rejects (TypeError) a JWK carrying private material (`d`, `p`, `q`, `k`...):
 * being handed one means a private key is travelling where only public keys should.
 */
export async function publicJwkThumbprint(jwk: JWK): Promise<string> {
  for (const member of ['d', 'p', 'q', 'dp', 'dq', 'qi', 'k'] as const) {
    if (jwk[member] !== undefined) throw new TypeError(`JWK carries private member "${member}"`);
  }
  return calculateJwkThumbprint(jwk, 'sha256');
}
