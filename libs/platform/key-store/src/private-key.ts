import { createPrivateKey, type KeyObject } from 'node:crypto';
import type { KeyEncryption } from '@svc/crypto';

/**
 * Decrypts a private key stored encrypted at rest (PKCS#8 DER under the key-encryption key, the kid
 * as additional data) and wipes the plaintext DER once it is imported.
 */
export function decryptPkcs8(kek: KeyEncryption, encrypted: Buffer, kid: string): KeyObject {
  const der = kek.decrypt(encrypted, kid);
  try {
    return createPrivateKey({ key: der, format: 'der', type: 'pkcs8' });
  } finally {
    der.fill(0);
  }
}
