import { createHash } from 'node:crypto';
import { ValidateBy, type ValidationOptions } from 'class-validator';
import { CompactEncrypt, importJWK, type JWK } from 'jose';

/** Private members of a JWK: a recipient key is published, so none may be sent. */
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];
const B64URL = /^[A-Za-z0-9_-]+$/;
/** Base64url length of a 2048-bit modulus. */
const MIN_RSA_MODULUS_CHARS = 342;

/** The JWE key management algorithm a recipient key is used with. */
export type RecipientKeyAlgorithm = 'ECDH-ES+A256KW' | 'RSA-OAEP-256';

/**
 * Whether `value` is a public key personal data may be encrypted to, and with which algorithm:
 * EC P-256/P-384/P-521 or OKP X25519 (ECDH-ES+A256KW), RSA of 2048 bits or more (RSA-OAEP-256).
 * A key with any private member is refused, as is a key whose `use` is not `enc`.
 */
export function recipientKeyAlgorithm(value: unknown): RecipientKeyAlgorithm | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const jwk = value as Record<string, unknown>;
  if (PRIVATE_MEMBERS.some((member) => member in jwk)) return undefined;
  if (jwk.use !== undefined && jwk.use !== 'enc') return undefined;
  const b64 = (member: string): boolean => typeof jwk[member] === 'string' && B64URL.test(jwk[member]) && jwk[member].length <= 1_024;
  if (jwk.kty === 'EC' && ['P-256', 'P-384', 'P-521'].includes(String(jwk.crv)) && b64('x') && b64('y')) return 'ECDH-ES+A256KW';
  if (jwk.kty === 'OKP' && jwk.crv === 'X25519' && b64('x')) return 'ECDH-ES+A256KW';
  if (jwk.kty === 'RSA' && b64('n') && b64('e') && (jwk.n as string).length >= MIN_RSA_MODULUS_CHARS) return 'RSA-OAEP-256';
  return undefined;
}

/** class-validator: a public encryption JWK (see {@link recipientKeyAlgorithm}). */
export function IsPublicEncryptionJwk(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isPublicEncryptionJwk',
      validator: {
        validate: (value: unknown) => recipientKeyAlgorithm(value) !== undefined,
        defaultMessage: () =>
          '$property must be a public JWK for encryption: EC P-256/P-384/P-521, OKP X25519 or RSA of 2048 bits or more, without private members',
      },
    },
    options,
  );
}

/** RFC 7638 thumbprint input members per key type. */
const THUMBPRINT_MEMBERS: Record<string, string[]> = { EC: ['crv', 'kty', 'x', 'y'], OKP: ['crv', 'kty', 'x'], RSA: ['e', 'kty', 'n'] };

/** RFC 7638 SHA-256 thumbprint of a public JWK (base64url). */
export function jwkThumbprint(jwk: Record<string, unknown>): string {
  const members = THUMBPRINT_MEMBERS[String(jwk.kty)] ?? [];
  const text = `{${members.map((member) => `${JSON.stringify(member)}:${JSON.stringify(jwk[member])}`).join(',')}}`;
  return createHash('sha256').update(text).digest('base64url');
}

/**
 * Encrypts `plaintext` to the recipient's public key as a compact JWE (enc A256GCM); the protected
 * header names the key by its thumbprint (`kid` when the JWK has none) and the transfer (`cty`
 * `application/json`, `svc_transfer_id`), so the recipient can tell which key and transfer it is.
 */
export async function encryptForRecipient(
  jwk: Record<string, unknown>,
  plaintext: string,
  transferId: string,
): Promise<{ jwe: string; alg: RecipientKeyAlgorithm; kid: string }> {
  const alg = recipientKeyAlgorithm(jwk);
  if (!alg) throw new Error('not a public encryption key');
  const kid = typeof jwk.kid === 'string' && jwk.kid ? jwk.kid : jwkThumbprint(jwk);
  const key = await importJWK(jwk as unknown as JWK, alg);
  const jwe = await new CompactEncrypt(new TextEncoder().encode(plaintext))
    .setProtectedHeader({ alg, enc: 'A256GCM', kid, cty: 'application/json', svc_transfer_id: transferId })
    .encrypt(key);
  return { jwe, alg, kid };
}
