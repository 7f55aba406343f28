import type { KeyObject } from 'node:crypto';
import type { Ed25519PublicJwk } from './ed25519';

/** The key new signatures are made with. */
export interface ActiveSigningKey {
  kid: string;
  privateKey: KeyObject;
  publicJwk: Ed25519PublicJwk;
}

/** One JWKS entry (RFC 7517 §4, RFC 8037 §2): public members only, never `d`. */
export interface SigningJwk extends Ed25519PublicJwk {
  kid: string;
  alg: 'EdDSA';
  use: 'sig';
}
