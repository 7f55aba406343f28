import { generateKeyPairSync, sign } from 'node:crypto';
import { ISS_ROLES, ReceiptVerificationError, verifyReceipt, type ReceiptJwk, type VerifyReceiptOptions } from './index';

const NOW = new Date('2026-01-01T00:00:00Z');
const T = NOW.getTime() / 1000;
const { privateKey, publicKey } = generateKeyPairSync('ed25519');
const jwk = { ...(publicKey.export({ format: 'jwk' }) as ReceiptJwk), kid: 'oap-us-v1' };
const HEADER = { alg: 'EdDSA', typ: 'oap+jwt', kid: 'oap-us-v1' };
const GOOD = { iss: 'https://us.example', iss_role: 'authorizer', jti: 'j', iat: T, exp: T + 600 };

const b64 = (value: unknown): string => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');
function token(claims: unknown = GOOD, header: unknown = HEADER): string {
  const input = `${b64(header)}.${b64(claims)}`;
  return `${input}.${sign(null, Buffer.from(input), privateKey).toString('base64url')}`;
}

async function refusal(receipt: unknown, options: Partial<VerifyReceiptOptions> = {}): Promise<{ code: string; message: string }> {
  try {
    await verifyReceipt(receipt as string, { keys: { keys: [jwk] }, now: NOW, ...options });
  } catch (error) {
    expect(error).toBeInstanceOf(ReceiptVerificationError);
    const { code, message, name } = error as ReceiptVerificationError;
    expect(name).toBe('ReceiptVerificationError');
    return { code, message };
  }
  throw new Error('the receipt was accepted');
}
const accept = (receipt: string, options: Partial<VerifyReceiptOptions> = {}) =>
  verifyReceipt(receipt, { keys: { keys: [jwk] }, now: NOW, ...options });

describe('verifyReceipt: every refusal rule at its boundary', () => {
  it('returns the header it verified and the claims', async () => {
    await expect(accept(token())).resolves.toEqual({ header: { alg: 'EdDSA', typ: 'oap+jwt', kid: 'oap-us-v1' }, claims: GOOD });
  });

  it('accepts every issuer role by default', async () => {
    expect(ISS_ROLES).toEqual(['authorizer', 'witness', 'approval_url_signer']);
    for (const role of ISS_ROLES) await expect(accept(token({ ...GOOD, iss_role: role }))).resolves.toBeDefined();
  });

  it('accepts only the roles asked for', async () => {
    expect(await refusal(token(), { roles: ['witness'] })).toEqual({
      code: 'iss_role_unknown',
      message: 'iss_role authorizer is not accepted',
    });
    await expect(accept(token({ ...GOOD, iss_role: 'witness' }), { roles: ['witness'] })).resolves.toBeDefined();
    expect(await refusal(token({ ...GOOD, iss_role: 7 }))).toEqual({ code: 'iss_role_unknown', message: 'iss_role 7 is not accepted' });
    expect(await refusal(token({ ...GOOD, iss_role: ['witness'] }), { roles: ['witness'] })).toEqual({
      code: 'iss_role_unknown',
      message: 'iss_role witness is not accepted',
    });
    expect(await refusal(token({ ...GOOD, iss_role: undefined }))).toEqual({
      code: 'iss_role_missing',
      message: 'Receipt has no iss_role',
    });
  });

  describe('shape', () => {
    it('refuses a non-string and anything over 16384 characters', async () => {
      const tooLong = { code: 'receipt_malformed', message: 'Receipt is not a string of acceptable length' };
      expect(await refusal(42)).toEqual(tooLong);
      expect(await refusal('a'.repeat(16_385))).toEqual(tooLong);
      expect(await refusal('a'.repeat(16_384))).toEqual({ code: 'receipt_malformed', message: 'Receipt is not a compact JWS' });
    });

    it.each(['a.b', 'a.b.c.d', 'a..c', 'a.b+.c', 'a.+b.c', `${b64(HEADER)}.${b64(GOOD)}.sig=`])(
      'refuses %s as not a compact JWS',
      async (receipt) => {
        expect(await refusal(receipt)).toEqual({ code: 'receipt_malformed', message: 'Receipt is not a compact JWS' });
      },
    );

    it.each([
      ['not JSON', 'not json'],
      ['an array', []],
      ['null', null],
    ])('refuses a header that is %s', async (_name, header) => {
      expect(await refusal(`${b64(header)}.${b64(GOOD)}.c2ln`)).toEqual({
        code: 'receipt_malformed',
        message: 'Receipt header is not a JSON object',
      });
    });

    it('refuses a header that is a JSON string or number', async () => {
      expect(await refusal(`${b64('"EdDSA"')}.${b64(GOOD)}.c2ln`)).toEqual({
        code: 'receipt_malformed',
        message: 'Receipt header is not a JSON object',
      });
      expect(await refusal(`${b64('42')}.${b64(GOOD)}.c2ln`)).toEqual({
        code: 'receipt_malformed',
        message: 'Receipt header is not a JSON object',
      });
    });

    it('refuses a signed payload that is not a JSON object', async () => {
      expect(await refusal(token([GOOD]))).toEqual({ code: 'receipt_malformed', message: 'Receipt payload is not a JSON object' });
    });

    it('refuses the crit and b64 JWS extensions', async () => {
      const unsupported = { code: 'receipt_malformed', message: 'Receipt uses an unsupported JWS extension' };
      expect(await refusal(token(GOOD, { ...HEADER, crit: ['exp'] }))).toEqual(unsupported);
      expect(await refusal(token(GOOD, { ...HEADER, b64: true }))).toEqual(unsupported);
    });
  });

  describe('header', () => {
    it('accepts typ oap+jwt in any case, with or without the application/ prefix', async () => {
      for (const typ of ['OAP+JWT', 'application/oap+jwt']) {
        await expect(accept(token(GOOD, { ...HEADER, typ }))).resolves.toMatchObject({ header: { typ } });
      }
    });

    it('refuses another or a missing typ', async () => {
      const mismatch = { code: 'type_mismatch', message: 'Receipt typ must be oap+jwt' };
      expect(await refusal(token(GOOD, { ...HEADER, typ: 'jwt' }))).toEqual(mismatch);
      expect(await refusal(token(GOOD, { ...HEADER, typ: 'xapplication/oap+jwt' }))).toEqual(mismatch);
      expect(await refusal(token(GOOD, { ...HEADER, typ: 'oapapplication/+jwt' }))).toEqual(mismatch);
      expect(await refusal(token(GOOD, { alg: 'EdDSA', kid: 'oap-us-v1' }))).toEqual(mismatch);
    });

    it('refuses any alg but EdDSA', async () => {
      expect(await refusal(token(GOOD, { ...HEADER, alg: 'ES256' }))).toEqual({
        code: 'algorithm_not_allowed',
        message: 'Receipt alg must be EdDSA',
      });
    });

    it('refuses a missing or empty kid', async () => {
      const noKid = { code: 'unknown_kid', message: 'Receipt has no kid' };
      expect(await refusal(token(GOOD, { alg: 'EdDSA', typ: 'oap+jwt' }))).toEqual(noKid);
      expect(await refusal(token(GOOD, { ...HEADER, kid: '' }))).toEqual(noKid);
    });
  });

  describe('key', () => {
    it('refuses a kid the key source does not know', async () => {
      expect(await refusal(token(GOOD, { ...HEADER, kid: 'oap-us-v9' }))).toEqual({
        code: 'unknown_kid',
        message: 'kid oap-us-v9 is not a known key',
      });
      expect(await refusal(token(), { keys: async () => undefined })).toMatchObject({ code: 'unknown_kid' });
    });

    it.each([
      ['another key type', { kty: 'EC', crv: 'Ed25519', x: jwk.x }],
      ['another curve', { kty: 'OKP', crv: 'X25519', x: jwk.x }],
      ['no public key', { kty: 'OKP', crv: 'Ed25519' }],
      ['a public key that is not a string', { kty: 'OKP', crv: 'Ed25519', x: [...Buffer.from(jwk.x, 'base64url')] }],
      ['a public key of the wrong length', { kty: 'OKP', crv: 'Ed25519', x: 'AAAA' }],
    ])('refuses a key with %s', async (_name, key) => {
      expect(await refusal(token(), { keys: { keys: [{ ...key, kid: 'oap-us-v1' } as ReceiptJwk] } })).toEqual({
        code: 'unknown_kid',
        message: 'kid oap-us-v1 is not an Ed25519 public key',
      });
    });

    it('refuses a truncated or empty-bytes signature', async () => {
      const [h, p, s] = token().split('.') as [string, string, string];
      const invalid = { code: 'signature_invalid', message: 'Receipt signature is invalid' };
      expect(await refusal(`${h}.${p}.${Buffer.from(s, 'base64url').subarray(0, 63).toString('base64url')}`)).toEqual(invalid);
      expect(await refusal(`${h}.${p}.${Buffer.concat([Buffer.from(s, 'base64url'), Buffer.from([0])]).toString('base64url')}`)).toEqual(
        invalid,
      );
    });
  });

  describe('time', () => {
    it('accepts exp up to the tolerance in the past, refuses it at the tolerance', async () => {
      await expect(accept(token({ ...GOOD, exp: T - 4 }))).resolves.toBeDefined();
      expect(await refusal(token({ ...GOOD, exp: T - 5 }))).toEqual({ code: 'expired', message: 'Receipt has expired' });
      expect(await refusal(token({ ...GOOD, exp: String(T + 600) }))).toMatchObject({ code: 'expired' });
    });

    it('accepts iat up to the tolerance in the future, refuses it beyond, or missing', async () => {
      await expect(accept(token({ ...GOOD, iat: T + 5 }))).resolves.toBeDefined();
      expect(await refusal(token({ ...GOOD, iat: T + 6 }))).toEqual({ code: 'issued_in_future', message: 'Receipt iat is in the future' });
      expect(await refusal(token({ ...GOOD, iat: undefined }))).toMatchObject({ code: 'issued_in_future' });
    });

    it('applies the configured tolerance', async () => {
      expect(await refusal(token({ ...GOOD, exp: T }), { clockToleranceSec: 0 })).toMatchObject({ code: 'expired' });
      await expect(accept(token({ ...GOOD, exp: T + 1 }), { clockToleranceSec: 0 })).resolves.toBeDefined();
      expect(await refusal(token({ ...GOOD, iat: T + 1 }), { clockToleranceSec: 0 })).toMatchObject({ code: 'issued_in_future' });
      await expect(accept(token({ ...GOOD, exp: T - 50 }), { clockToleranceSec: 60 })).resolves.toBeDefined();
    });

    it('verifies at the current time by default', async () => {
      const now = Math.floor(Date.now() / 1000);
      await expect(verifyReceipt(token({ ...GOOD, iat: now, exp: now + 60 }), { keys: { keys: [jwk] } })).resolves.toBeDefined();
      await expect(verifyReceipt(token({ ...GOOD, iat: now - 600, exp: now - 60 }), { keys: { keys: [jwk] } })).rejects.toMatchObject({
        code: 'expired',
      });
    });
  });
});
