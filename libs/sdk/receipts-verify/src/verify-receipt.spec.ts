import { createHmac, generateKeyPairSync, sign } from 'node:crypto';
import { ReceiptVerificationError, verifyReceipt, type ReceiptJwk } from './index';

const NOW = new Date('2026-01-01T00:00:00Z');
const T = Math.floor(NOW.getTime() / 1000);
const { privateKey, publicKey } = generateKeyPairSync('ed25519');
const jwk = { ...(publicKey.export({ format: 'jwk' }) as ReceiptJwk), kid: 'oap-us-v1' };
const keys = { keys: [jwk] };

const b64 = (value: unknown): string => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');

function token(
  claims: Record<string, unknown>,
  header: Record<string, unknown> = { alg: 'EdDSA', typ: 'oap+jwt', kid: 'oap-us-v1' },
): string {
  const input = `${b64(header)}.${b64(claims)}`;
  return `${input}.${sign(null, Buffer.from(input), privateKey).toString('base64url')}`;
}

const good = { iss: 'https://us.example', iss_role: 'authorizer', oap_ver: '1.0', jti: 'j', iat: T, exp: T + 600 };

async function code(receipt: string): Promise<string | undefined> {
  try {
    await verifyReceipt(receipt, { keys, now: NOW });
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(ReceiptVerificationError);
    return (error as ReceiptVerificationError).code;
  }
}

describe('verifyReceipt (spec: receipt verification libraries throw on …)', () => {
  it('accepts a well-formed authorizer receipt', async () => {
    const verified = await verifyReceipt(token(good), { keys, now: NOW });
    expect(verified.claims.iss_role).toBe('authorizer');
    expect(verified.header.kid).toBe('oap-us-v1');
  });

  it('resolves keys through a lookup function', async () => {
    await expect(verifyReceipt(token(good), { keys: (kid) => (kid === 'oap-us-v1' ? jwk : undefined), now: NOW })).resolves.toBeDefined();
  });

  it('throws on a missing iss_role', async () => {
    const { iss_role: _r, ...rest } = good;
    expect(await code(token(rest))).toBe('iss_role_missing');
  });

  it('throws on an unknown iss_role', async () => {
    expect(await code(token({ ...good, iss_role: 'oracle' }))).toBe('iss_role_unknown');
  });

  it('throws on an expired exp (and a missing exp)', async () => {
    expect(await code(token({ ...good, exp: T - 60 }))).toBe('expired');
    const { exp: _e, ...rest } = good;
    expect(await code(token(rest))).toBe('expired');
  });

  it('throws on a future iat', async () => {
    expect(await code(token({ ...good, iat: T + 600, exp: T + 1200 }))).toBe('issued_in_future');
  });

  it('throws on a bad signature (tampered payload)', async () => {
    const [h, , s] = token(good).split('.');
    expect(await code(`${h}.${b64({ ...good, iss_role: 'witness' })}.${s}`)).toBe('signature_invalid');
  });

  it('throws on an unknown kid', async () => {
    expect(await code(token(good, { alg: 'EdDSA', typ: 'oap+jwt', kid: 'oap-us-v9' }))).toBe('unknown_kid');
  });

  it('refuses alg none and HS256 keyed with the public key', async () => {
    expect(await code(`${b64({ alg: 'none', typ: 'oap+jwt', kid: 'oap-us-v1' })}.${b64(good)}.`)).toBe('receipt_malformed');
    const input = `${b64({ alg: 'HS256', typ: 'oap+jwt', kid: 'oap-us-v1' })}.${b64(good)}`;
    const mac = createHmac('sha256', JSON.stringify(jwk)).update(input).digest('base64url');
    expect(await code(`${input}.${mac}`)).toBe('algorithm_not_allowed');
  });

  it('refuses a wrong typ and garbage', async () => {
    expect(await code(token(good, { alg: 'EdDSA', typ: 'JWT', kid: 'oap-us-v1' }))).toBe('type_mismatch');
    expect(await code('not-a-jws')).toBe('receipt_malformed');
  });
});
