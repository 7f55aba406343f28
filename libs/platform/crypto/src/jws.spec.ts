import { createHmac, sign, type KeyObject } from 'node:crypto';
import { isDomainError } from '@svc/errors';
import { CompactSign } from 'jose';
import nacl from 'tweetnacl';
import { canonicalJson } from './canonical-json';
import { generateEd25519KeyPair } from './ed25519';
import { signCompactJws, signDetachedJws, verifyCompactJws, verifyDetachedJws } from './jws';
import type { ActiveSigningKey } from './signing-key';

const NOW = new Date('2026-03-01T12:00:00Z');
const NOW_SEC = NOW.getTime() / 1000;

const pair = generateEd25519KeyPair();
const key: ActiveSigningKey = { kid: 'oap-us-v1', privateKey: pair.privateKey, publicJwk: pair.publicJwk };
const resolveKey = async (kid: string): Promise<KeyObject | undefined> => (kid === key.kid ? pair.publicKey : undefined);
const attacker = generateEd25519KeyPair();

const b64json = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const receipt = (claims: Record<string, unknown> = {}) => ({
  iss: 'https://us.example',
  iss_role: 'authorizer',
  jti: 'rcpt_1',
  iat: NOW_SEC - 10,
  exp: NOW_SEC + 300,
  grant_id: 'ath_us_1',
  ...claims,
});

/** Builds `header.payload.signature` with an arbitrary signer over the JWS signing input. */
function forge(header: Record<string, unknown>, payload: unknown, signInput: (input: Buffer) => Buffer): string {
  const input = `${b64json(header)}.${b64json(payload)}`;
  return `${input}.${signInput(Buffer.from(input)).toString('base64url')}`;
}

async function codeOf(run: () => Promise<unknown>): Promise<string | undefined> {
  try {
    await run();
  } catch (error) {
    return isDomainError(error) ? error.code : `non-domain: ${String(error)}`;
  }
  return undefined;
}

const verifyAt = (token: string, options: { typ?: string; clockToleranceSec?: number } = {}) =>
  verifyCompactJws(token, resolveKey, { now: NOW, typ: 'oap+jwt', ...options });

describe('signCompactJws', () => {
  it('produces header {alg: EdDSA, typ, kid} and the canonical JSON payload', async () => {
    const token = await signCompactJws(key, { b: 1, a: 'x' }, { typ: 'oap+jwt', extraHeader: { cty: 'x' } });
    const [header = '', payload = ''] = token.split('.');
    expect(JSON.parse(Buffer.from(header, 'base64url').toString())).toEqual({ cty: 'x', alg: 'EdDSA', typ: 'oap+jwt', kid: 'oap-us-v1' });
    expect(Buffer.from(payload, 'base64url').toString()).toBe('{"a":"x","b":1}');
  });

  it('verifies with tweetnacl (an independent Ed25519) over the ASCII of header.payload', async () => {
    const token = await signCompactJws(key, receipt(), { typ: 'oap+jwt' });
    const [header, payload, signature = ''] = token.split('.');
    const publicKey = Buffer.from(key.publicJwk.x, 'base64url');
    const input = Buffer.from(`${header}.${payload}`, 'ascii');
    expect(nacl.sign.detached.verify(input, Buffer.from(signature, 'base64url'), publicKey)).toBe(true);
    input[0] = (input[0] ?? 0) ^ 0x01;
    expect(nacl.sign.detached.verify(input, Buffer.from(signature, 'base64url'), publicKey)).toBe(false);
  });

  it('round-trips through verifyCompactJws', async () => {
    const token = await signCompactJws(key, receipt({ single_use: true }), { typ: 'oap+jwt' });
    const { header, payload } = await verifyAt(token);
    expect(header).toEqual({ alg: 'EdDSA', typ: 'oap+jwt', kid: 'oap-us-v1' });
    expect(payload).toEqual(receipt({ single_use: true }));
  });

  it.each(['alg', 'kid', 'typ', 'crit', 'b64'])('refuses an extraHeader that sets %s', async (name) => {
    await expect(signCompactJws(key, {}, { typ: 'oap+jwt', extraHeader: { [name]: 'x' } })).rejects.toThrow(TypeError);
  });

  it('refuses claims JSON cannot carry instead of altering them', async () => {
    expect(await codeOf(() => signCompactJws(key, { value: Number.NaN }, { typ: 'oap+jwt' }))).toBe('canonical_json_unrepresentable');
  });
});

describe('verifyCompactJws refuses forged and invalid tokens with exact codes', () => {
  const header = { alg: 'EdDSA', typ: 'oap+jwt', kid: 'oap-us-v1' };

  it('alg: none with an empty signature → jws_algorithm_not_allowed', async () => {
    const token = `${b64json({ ...header, alg: 'none' })}.${b64json(receipt())}.`;
    expect(await codeOf(() => verifyAt(token))).toBe('jws_algorithm_not_allowed');
  });

  it('HS256 keyed with the public key bytes → jws_algorithm_not_allowed', async () => {
    const secret = Buffer.from(key.publicJwk.x, 'base64url');
    const token = forge({ ...header, alg: 'HS256' }, receipt(), (input) => createHmac('sha256', secret).update(input).digest());
    expect(await codeOf(() => verifyAt(token))).toBe('jws_algorithm_not_allowed');
  });

  it('HS256 keyed with the public key, built by jose itself → jws_algorithm_not_allowed', async () => {
    const token = await new CompactSign(Buffer.from(JSON.stringify(receipt())))
      .setProtectedHeader({ ...header, alg: 'HS256' })
      .sign(new TextEncoder().encode(JSON.stringify(key.publicJwk)));
    expect(await codeOf(() => verifyAt(token))).toBe('jws_algorithm_not_allowed');
  });

  it.each(['eddsa', 'Ed25519', 'ES256', 'RS256'])('alg %s → jws_algorithm_not_allowed', async (alg) => {
    const token = forge({ ...header, alg }, receipt(), (input) => sign(null, input, pair.privateKey));
    expect(await codeOf(() => verifyAt(token))).toBe('jws_algorithm_not_allowed');
  });

  it('unknown kid → jws_unknown_kid', async () => {
    const token = await signCompactJws({ ...key, kid: 'oap-us-v9', privateKey: attacker.privateKey }, receipt(), { typ: 'oap+jwt' });
    expect(await codeOf(() => verifyAt(token))).toBe('jws_unknown_kid');
  });

  it('our kid, signed by another key → jws_signature_invalid', async () => {
    const token = await signCompactJws({ ...key, privateKey: attacker.privateKey }, receipt(), { typ: 'oap+jwt' });
    expect(await codeOf(() => verifyAt(token))).toBe('jws_signature_invalid');
  });

  it('an embedded attacker jwk header is ignored, the kid decides → jws_signature_invalid', async () => {
    const token = await signCompactJws({ ...key, privateKey: attacker.privateKey }, receipt(), {
      typ: 'oap+jwt',
      extraHeader: { jwk: attacker.publicJwk },
    });
    expect(await codeOf(() => verifyAt(token))).toBe('jws_signature_invalid');
  });

  it('one payload byte flipped → jws_signature_invalid', async () => {
    const [h, p = '', s] = (await signCompactJws(key, receipt({ value: 100 }), { typ: 'oap+jwt' })).split('.');
    const bytes = Buffer.from(p, 'base64url');
    const at = bytes.indexOf('100');
    bytes[at] = (bytes[at] ?? 0) ^ 0x08; // '1' → '9': still valid JSON, a different amount
    const tampered = `${h}.${bytes.toString('base64url')}.${s}`;
    expect(JSON.parse(bytes.toString())).toMatchObject({ value: 900 });
    expect(await codeOf(() => verifyAt(tampered))).toBe('jws_signature_invalid');
  });

  it('one signature byte flipped → jws_signature_invalid', async () => {
    const [h, p, s = ''] = (await signCompactJws(key, receipt(), { typ: 'oap+jwt' })).split('.');
    const signature = Buffer.from(s, 'base64url');
    signature[10] = (signature[10] ?? 0) ^ 0x01;
    expect(await codeOf(() => verifyAt(`${h}.${p}.${signature.toString('base64url')}`))).toBe('jws_signature_invalid');
  });

  it('malleated signature S+L (RFC 8032 §5.1.7 requires S < L) → jws_signature_invalid', async () => {
    const [h, p, s = ''] = (await signCompactJws(key, receipt(), { typ: 'oap+jwt' })).split('.');
    const signature = Buffer.from(s, 'base64url');
    const L = 2n ** 252n + 27742317777372353535851937790883648493n;
    const S = BigInt(`0x${Buffer.from(signature.subarray(32)).reverse().toString('hex')}`);
    const malleated = Buffer.from((S + L).toString(16).padStart(64, '0'), 'hex').reverse();
    const forged = Buffer.concat([signature.subarray(0, 32), malleated]).toString('base64url');
    expect(forged).not.toBe(s);
    expect(await codeOf(() => verifyAt(`${h}.${p}.${forged}`))).toBe('jws_signature_invalid');
  });

  it('non-canonical base64url (same bytes, other padding bits) → jws_malformed', async () => {
    const token = await signCompactJws(key, receipt(), { typ: 'oap+jwt' });
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const last = token.at(-1) ?? 'A';
    const variant = `${token.slice(0, -1)}${alphabet[alphabet.indexOf(last) ^ 0x01]}`;
    const decode = (t: string) => Buffer.from(t.split('.')[2] ?? '', 'base64url');
    expect(decode(variant).equals(decode(token))).toBe(true);
    expect(await codeOf(() => verifyAt(variant))).toBe('jws_malformed');
  });

  it('expired exp → jws_expired (and the tolerance boundary holds)', async () => {
    const sign = (exp: number) => signCompactJws(key, receipt({ exp }), { typ: 'oap+jwt' });
    expect(await codeOf(async () => verifyAt(await sign(NOW_SEC - 60)))).toBe('jws_expired');
    expect(await codeOf(async () => verifyAt(await sign(NOW_SEC - 5), { clockToleranceSec: 5 }))).toBe('jws_expired');
    expect(await codeOf(async () => verifyAt(await sign(NOW_SEC - 4), { clockToleranceSec: 5 }))).toBeUndefined();
    expect(await codeOf(async () => verifyAt(await sign(NOW_SEC), { clockToleranceSec: 0 }))).toBe('jws_expired');
  });

  it('future iat beyond tolerance → jws_issued_in_future', async () => {
    const sign = (iat: number) => signCompactJws(key, receipt({ iat }), { typ: 'oap+jwt' });
    expect(await codeOf(async () => verifyAt(await sign(NOW_SEC + 60)))).toBe('jws_issued_in_future');
    expect(await codeOf(async () => verifyAt(await sign(NOW_SEC + 6), { clockToleranceSec: 5 }))).toBe('jws_issued_in_future');
    expect(await codeOf(async () => verifyAt(await sign(NOW_SEC + 5), { clockToleranceSec: 5 }))).toBeUndefined();
  });

  it('future nbf → jws_not_yet_valid', async () => {
    const token = await signCompactJws(key, receipt({ nbf: NOW_SEC + 60 }), { typ: 'oap+jwt' });
    expect(await codeOf(() => verifyAt(token))).toBe('jws_not_yet_valid');
  });

  it('non-numeric exp → jws_malformed', async () => {
    const token = await signCompactJws(key, receipt({ exp: '2030-01-01' }), { typ: 'oap+jwt' });
    expect(await codeOf(() => verifyAt(token))).toBe('jws_malformed');
  });

  it('typ other than required, or absent → jws_type_mismatch; case and application/ prefix ignored', async () => {
    const dpop = await signCompactJws(key, receipt(), { typ: 'dpop+jwt' });
    expect(await codeOf(() => verifyAt(dpop))).toBe('jws_type_mismatch');
    const untyped = forge({ alg: 'EdDSA', kid: key.kid }, receipt(), (input) => sign(null, input, pair.privateKey));
    expect(await codeOf(() => verifyAt(untyped))).toBe('jws_type_mismatch');
    expect(await codeOf(() => verifyAt(untyped, { typ: undefined }))).toBeUndefined();
    const prefixed = await signCompactJws(key, receipt(), { typ: 'application/OAP+JWT' });
    expect(await codeOf(() => verifyAt(prefixed))).toBeUndefined();
  });

  it.each([
    ['two segments', 'abc.def'],
    ['four segments', 'a.b.c.d'],
    ['a non-base64url character', 'ey+J.e30.AA'],
    ['a header that is not JSON', `${Buffer.from('nope').toString('base64url')}.e30.AA`],
    ['a header that is a JSON array', `${b64json(['EdDSA'])}.e30.AA`],
    ['an oversized token', `${'a'.repeat(70_000)}.e30.AA`],
  ])('%s → jws_malformed', async (_label, token) => {
    expect(await codeOf(() => verifyAt(token))).toBe('jws_malformed');
  });

  it.each([
    ['a missing kid', { alg: 'EdDSA', typ: 'oap+jwt' }],
    ['a numeric kid', { alg: 'EdDSA', typ: 'oap+jwt', kid: 1 }],
    ['crit', { ...header, crit: ['exp'] }],
    ['b64: false', { ...header, b64: false }],
  ])('a correctly signed token with %s → jws_malformed', async (_label, forgedHeader) => {
    const token = forge(forgedHeader, receipt(), (input) => sign(null, input, pair.privateKey));
    expect(await codeOf(() => verifyAt(token))).toBe('jws_malformed');
  });

  it('a correctly signed payload that is not a JSON object → jws_malformed', async () => {
    const token = forge(header, [1, 2], (input) => sign(null, input, pair.privateKey));
    expect(await codeOf(() => verifyAt(token))).toBe('jws_malformed');
  });

  it('every refusal is a DomainError of kind unauthenticated', async () => {
    const error: unknown = await verifyAt(`${b64json({ ...header, alg: 'none' })}.${b64json(receipt())}.`).catch((e: unknown) => e);
    expect(isDomainError(error) && error.kind).toBe('unauthenticated');
  });
});

describe('detached JWS (RFC 7515 Appendix F)', () => {
  const content = new TextEncoder().encode(canonicalJson({ receipt: 'authorization_record', grant_id: 'ath_us_1', amount: 100 }));

  it('has an empty payload segment and verifies over the content', async () => {
    const jws = await signDetachedJws(key, content, { typ: 'oap-record+jws' });
    const [header = '', payload, signature = ''] = jws.split('.');
    expect(payload).toBe('');
    expect(JSON.parse(Buffer.from(header, 'base64url').toString())).toEqual({ alg: 'EdDSA', typ: 'oap-record+jws', kid: 'oap-us-v1' });
    const input = Buffer.from(`${header}.${Buffer.from(content).toString('base64url')}`);
    expect(nacl.sign.detached.verify(input, Buffer.from(signature, 'base64url'), Buffer.from(key.publicJwk.x, 'base64url'))).toBe(true);
    await expect(verifyDetachedJws(jws, content, resolveKey, { typ: 'oap-record+jws' })).resolves.toEqual({
      header: { alg: 'EdDSA', typ: 'oap-record+jws', kid: 'oap-us-v1' },
    });
  });

  it('fails when one byte of the content flips', async () => {
    const jws = await signDetachedJws(key, content);
    const flipped = Uint8Array.from(content);
    flipped[5] = (flipped[5] ?? 0) ^ 0x01;
    expect(await codeOf(() => verifyDetachedJws(jws, flipped, resolveKey))).toBe('jws_signature_invalid');
  });

  it('refuses an attached payload in place of the detached form', async () => {
    const jws = await signDetachedJws(key, content);
    const [h, , s] = jws.split('.');
    const attached = `${h}.${Buffer.from(content).toString('base64url')}.${s}`;
    expect(await codeOf(() => verifyDetachedJws(attached, content, resolveKey))).toBe('jws_malformed');
  });

  it('refuses an unknown kid and a wrong typ', async () => {
    const foreign = await signDetachedJws({ ...key, kid: 'oap-eu-v1', privateKey: attacker.privateKey }, content);
    expect(await codeOf(() => verifyDetachedJws(foreign, content, resolveKey))).toBe('jws_unknown_kid');
    const jws = await signDetachedJws(key, content, { typ: 'a+jws' });
    expect(await codeOf(() => verifyDetachedJws(jws, content, resolveKey, { typ: 'b+jws' }))).toBe('jws_type_mismatch');
  });
});
