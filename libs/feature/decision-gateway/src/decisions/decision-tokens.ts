import { newConsentToken, randomBase64Url } from '@svc/ids';
import { tokenDigest } from './session-token';

/** A freshly minted single-use token and the digest stored in its place. */
export interface MintedToken {
  token: string;
  sha256: string;
}

/** Consent token: opaque, 32 random bytes in URL-safe base64 (43 characters). */
export function mintConsentToken(): MintedToken {
  const token = newConsentToken();
  return { token, sha256: tokenDigest(token) };
}

/** Exchange token: delivered with the complete event, exchanged once server-side. */
export function mintExchangeToken(): MintedToken {
  const token = randomBase64Url(32);
  return { token, sha256: tokenDigest(token) };
}
