import type { KeyObject } from 'node:crypto';
import { importEd25519PublicJwk } from '@svc/crypto';
import type { JWK } from 'jose';

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The Ed25519 keys of a JWKS document by kid, for offline verification; undefined when the text is
 * not a JWKS. Keys of other types are skipped: they cannot have signed a receipt.
 */
export function parseEd25519Jwks(text: string): Map<string, KeyObject> | undefined {
  let jwks: unknown;
  try {
    jwks = JSON.parse(text);
  } catch {
    // Not JSON: jwks stays undefined and is refused below like any other non-JWKS.
  }
  if (!isObject(jwks) || !Array.isArray(jwks.keys)) return undefined;
  const keys = new Map<string, KeyObject>();
  for (const jwk of jwks.keys) {
    if (!isObject(jwk) || typeof jwk.kid !== 'string') continue;
    try {
      keys.set(jwk.kid, importEd25519PublicJwk(jwk as unknown as JWK));
    } catch {
      // Not an Ed25519 key: it cannot have signed a receipt; skip it.
    }
  }
  return keys;
}
