import { FakeClock } from '@svc/config';
import { sha256Base64Url } from '@svc/crypto';
import { DomainError } from '@svc/errors';
import { SignJWT, calculateJwkThumbprint, exportJWK, generateKeyPair, type JWK, type KeyLike } from 'jose';
import type { DataSource } from 'typeorm';
import { ReplayCache, type ReplayKind } from '../shared/replay-cache';
import { DPOP_ALGORITHMS, DPOP_IAT_WINDOW_SECONDS, DpopVerifier, normaliseHtu } from './dpop';

const NOW_SECONDS = Date.parse('2026-03-04T10:30:00Z') / 1000;
const URL = 'https://us.example.com/api/v1/grants';

/** The replay cache's contract without Postgres (its SQL is covered by the integration tier). */
class InMemoryReplayCache extends ReplayCache {
  readonly recorded: Array<{ kind: ReplayKind; value: string; expiresAt: Date }> = [];
  constructor() {
    super(undefined as unknown as DataSource);
  }
  override async firstUse(kind: ReplayKind, value: string, expiresAt: Date): Promise<boolean> {
    if (this.recorded.some((entry) => entry.kind === kind && entry.value === value)) return false;
    this.recorded.push({ kind, value, expiresAt });
    return true;
  }
}

interface Signer {
  privateKey: KeyLike;
  jwk: JWK;
  alg: string;
}

async function signer(alg: 'EdDSA' | 'ES256' = 'EdDSA'): Promise<Signer> {
  const { privateKey, publicKey } = await generateKeyPair(alg);
  return { privateKey, jwk: await exportJWK(publicKey), alg };
}

async function proof(key: Signer, claims: Record<string, unknown> = {}, header: Record<string, unknown> = {}): Promise<string> {
  return new SignJWT({ htm: 'POST', htu: URL, iat: NOW_SECONDS, jti: 'jti-0000-0001', ...claims })
    .setProtectedHeader({ alg: key.alg, typ: 'dpop+jwt', jwk: key.jwk, ...header } as never)
    .sign(key.privateKey);
}

function verifier(): { dpop: DpopVerifier; replay: InMemoryReplayCache } {
  const replay = new InMemoryReplayCache();
  return { dpop: new DpopVerifier(new FakeClock(new Date(NOW_SECONDS * 1000)), replay), replay };
}

/** The reason code, detail and headers of a refused proof. */
async function refusal(header: string | string[] | undefined, request: { method?: string; url?: string; accessToken?: string } = {}) {
  try {
    await verifier().dpop.verifyDeferringReplay({
      header,
      method: request.method ?? 'POST',
      url: request.url ?? URL,
      accessToken: request.accessToken,
    });
  } catch (error) {
    expect(error).toBeInstanceOf(DomainError);
    const { code, message, detail, headers } = error as DomainError;
    return { code, message, reason: detail?.reason, headers };
  }
  throw new Error('the proof was accepted');
}

let key: Signer;
beforeAll(async () => {
  key = await signer();
});

describe('DPoP proof verification (RFC 9449 §4.3)', () => {
  it('accepts a fresh proof and returns the RFC 7638 thumbprint of its key, with the jti to record for two windows', async () => {
    const { dpop } = verifier();
    const verified = await dpop.verifyDeferringReplay({ header: await proof(key), method: 'POST', url: URL });
    const jkt = await calculateJwkThumbprint(key.jwk, 'sha256');
    expect(verified).toEqual({
      jkt,
      replay: { value: `${jkt}.jti-0000-0001`, expiresAt: new Date((NOW_SECONDS + 2 * DPOP_IAT_WINDOW_SECONDS) * 1000) },
    });
  });

  it('accepts every asymmetric algorithm it lists, and only those', async () => {
    expect(DPOP_ALGORITHMS).toEqual(['Ed25519', 'EdDSA', 'ES256', 'ES384', 'PS256', 'RS256']);
    const es256 = await signer('ES256');
    const { dpop } = verifier();
    await expect(dpop.verifyDeferringReplay({ header: await proof(es256), method: 'POST', url: URL })).resolves.toMatchObject({
      jkt: await calculateJwkThumbprint(es256.jwk, 'sha256'),
    });
  });

  it('gives the same thumbprint when the same key signs again', async () => {
    const { dpop } = verifier();
    const first = await dpop.verifyDeferringReplay({ header: await proof(key, { jti: 'jti-first-0001' }), method: 'POST', url: URL });
    const second = await dpop.verifyDeferringReplay({ header: await proof(key, { jti: 'jti-second-001' }), method: 'POST', url: URL });
    expect(second.jkt).toBe(first.jkt);
    expect(second.replay.value).toBe(`${first.jkt}.jti-second-001`);
  });

  it('keeps the keys of different agents apart when one verifier checks both', async () => {
    const { dpop } = verifier();
    const other = await signer();
    const first = await dpop.verifyDeferringReplay({ header: await proof(key), method: 'POST', url: URL });
    const second = await dpop.verifyDeferringReplay({ header: await proof(other), method: 'POST', url: URL });
    expect(first.jkt).toBe(await calculateJwkThumbprint(key.jwk, 'sha256'));
    expect(second.jkt).toBe(await calculateJwkThumbprint(other.jwk, 'sha256'));
    expect(second.jkt).not.toBe(first.jkt);
  });

  describe('the DPoP header', () => {
    it('is required, and the refusal names the accepted algorithms', async () => {
      expect(await refusal(undefined)).toEqual({
        code: 'dpop_proof_missing',
        message: 'A DPoP proof header is required',
        reason: undefined,
        headers: { 'WWW-Authenticate': 'DPoP algs="Ed25519 EdDSA ES256 ES384 PS256 RS256"' },
      });
    });
    it('must be a single header', async () => {
      expect(await refusal([await proof(key), await proof(key)])).toMatchObject({
        code: 'dpop_proof_invalid',
        message: 'Exactly one DPoP header is allowed',
      });
    });
    it('is refused above 8192 characters before being parsed', async () => {
      expect(await refusal('a'.repeat(8193))).toMatchObject({ code: 'dpop_proof_invalid', message: 'DPoP proof is too long' });
      expect(await refusal('a'.repeat(8192))).toMatchObject({ code: 'dpop_proof_invalid', message: 'DPoP proof is not a JWS' });
    });
  });

  describe('the embedded key', () => {
    it('must be a public JWK', async () => {
      const { privateKey } = await generateKeyPair('EdDSA');
      const privateJwk = await exportJWK(privateKey);
      const expected = { code: 'dpop_proof_invalid', message: 'DPoP proof must embed a public jwk' };
      expect(await refusal(await proof(key, {}, { jwk: privateJwk }))).toMatchObject(expected);
      expect(await refusal(await proof(key, {}, { jwk: { kty: 'oct', k: 'c2VjcmV0' } }))).toMatchObject(expected);
      expect(await refusal(await proof(key, {}, { jwk: 'not-an-object' }))).toMatchObject(expected);
      expect(await refusal(await proof(key, {}, { jwk: undefined }))).toMatchObject(expected);
    });
    it('must have made the signature', async () => {
      const other = await signer();
      expect(await refusal(await proof(key, {}, { jwk: other.jwk }))).toEqual({
        code: 'dpop_proof_invalid',
        message: 'DPoP proof signature or header is invalid',
        reason: 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED',
        headers: undefined,
      });
    });
  });

  it('requires typ dpop+jwt', async () => {
    expect(await refusal(await proof(key, {}, { typ: 'JWT' }))).toMatchObject({
      code: 'dpop_proof_invalid',
      reason: 'ERR_JWT_CLAIM_VALIDATION_FAILED',
    });
  });

  it('judges exp on the service clock, with the iat window as tolerance', async () => {
    expect(
      (await verifier().dpop.verifyDeferringReplay({ header: await proof(key, { exp: NOW_SECONDS + 30 }), method: 'POST', url: URL })).jkt,
    ).toBeDefined();
    expect(
      (
        await verifier().dpop.verifyDeferringReplay({
          header: await proof(key, { exp: NOW_SECONDS - DPOP_IAT_WINDOW_SECONDS + 1 }),
          method: 'POST',
          url: URL,
        })
      ).jkt,
    ).toBeDefined();
    expect(await refusal(await proof(key, { exp: NOW_SECONDS - DPOP_IAT_WINDOW_SECONDS - 1 }))).toMatchObject({
      reason: 'ERR_JWT_EXPIRED',
    });
  });

  it('requires htm equal to the request method', async () => {
    expect(await refusal(await proof(key), { method: 'GET' })).toEqual({
      code: 'dpop_proof_invalid',
      message: 'DPoP htm does not match the request method',
      reason: 'htm_mismatch',
      headers: undefined,
    });
  });

  describe('htu', () => {
    it('must be the request URL, ignoring query, fragment and the case of scheme and host', async () => {
      const { dpop } = verifier();
      await expect(
        dpop.verifyDeferringReplay({
          header: await proof(key, { htu: 'HTTPS://US.Example.com:443/api/v1/grants' }),
          method: 'POST',
          url: `${URL}?x=1#f`,
        }),
      ).resolves.toBeDefined();
      expect(await refusal(await proof(key, { htu: 'https://us.example.com/api/v1/Grants' }))).toEqual({
        code: 'dpop_proof_invalid',
        message: 'DPoP htu does not match the request URL',
        reason: 'htu_mismatch',
        headers: undefined,
      });
      expect(await refusal(await proof(key, { htu: 'https://eu.example.com/api/v1/grants' }))).toMatchObject({ reason: 'htu_mismatch' });
    });
    it('must be a string, even against a request URL that does not parse', async () => {
      expect(await refusal(await proof(key, { htu: 42 }), { url: 'not a url' })).toMatchObject({ reason: 'htu_mismatch' });
    });
    it('must be a string', async () => {
      expect(await refusal(await proof(key, { htu: 42 }))).toMatchObject({ reason: 'htu_mismatch' });
      expect(await refusal(await proof(key, { htu: undefined }))).toMatchObject({ reason: 'htu_mismatch' });
    });
    it('normalises to scheme, host and path; an unparseable URL to nothing', () => {
      expect(normaliseHtu('HTTPS://Api.Example.com:443/Path/x?q=1#f')).toBe('https://api.example.com/Path/x');
      expect(normaliseHtu('http://api.example.com:8080/p')).toBe('http://api.example.com:8080/p');
      expect(normaliseHtu('not a url')).toBe('');
    });
  });

  describe('iat', () => {
    it(`is accepted up to ${DPOP_IAT_WINDOW_SECONDS} s either side of now`, async () => {
      for (const iat of [NOW_SECONDS - DPOP_IAT_WINDOW_SECONDS, NOW_SECONDS + DPOP_IAT_WINDOW_SECONDS]) {
        await expect(
          verifier().dpop.verifyDeferringReplay({ header: await proof(key, { iat }), method: 'POST', url: URL }),
        ).resolves.toBeDefined();
      }
    });
    it('is refused a second beyond the window, and when missing', async () => {
      const expected = {
        code: 'dpop_proof_invalid',
        message: 'DPoP iat is outside the accepted window',
        reason: 'iat_window',
        headers: undefined,
      };
      expect(await refusal(await proof(key, { iat: NOW_SECONDS - DPOP_IAT_WINDOW_SECONDS - 1 }))).toEqual(expected);
      expect(await refusal(await proof(key, { iat: NOW_SECONDS + DPOP_IAT_WINDOW_SECONDS + 1 }))).toEqual(expected);
      expect(await refusal(await proof(key, { iat: undefined }))).toEqual(expected);
    });
  });

  describe('jti', () => {
    it('is accepted from 8 to 256 characters', async () => {
      for (const jti of ['j'.repeat(8), 'j'.repeat(256)]) {
        await expect(
          verifier().dpop.verifyDeferringReplay({ header: await proof(key, { jti }), method: 'POST', url: URL }),
        ).resolves.toBeDefined();
      }
    });
    it('is refused when missing, not a string, shorter than 8 or longer than 256', async () => {
      const expected = { code: 'dpop_proof_invalid', message: 'DPoP jti is missing', reason: 'jti_missing', headers: undefined };
      for (const jti of [undefined, 12345678, 'j'.repeat(7), 'j'.repeat(257)])
        expect(await refusal(await proof(key, { jti }))).toEqual(expected);
    });
  });

  describe('ath', () => {
    it('must be the SHA-256 of the presented access token', async () => {
      const { dpop } = verifier();
      await expect(
        dpop.verifyDeferringReplay({
          header: await proof(key, { ath: sha256Base64Url('token-1') }),
          method: 'POST',
          url: URL,
          accessToken: 'token-1',
        }),
      ).resolves.toBeDefined();
      expect(await refusal(await proof(key, { ath: sha256Base64Url('token-1') }), { accessToken: 'token-2' })).toEqual({
        code: 'dpop_proof_invalid',
        message: 'DPoP ath does not match the access token',
        reason: 'ath_mismatch',
        headers: undefined,
      });
      expect(await refusal(await proof(key), { accessToken: 'token-1' })).toMatchObject({ reason: 'ath_mismatch' });
    });
    it('is not checked without an access token', async () => {
      await expect(
        verifier().dpop.verifyDeferringReplay({ header: await proof(key, { ath: 'anything' }), method: 'POST', url: URL }),
      ).resolves.toBeDefined();
    });
  });

  describe('replay', () => {
    it('records the jti as a dpop value and refuses the same proof twice', async () => {
      const { dpop, replay } = verifier();
      const header = await proof(key);
      const jkt = await calculateJwkThumbprint(key.jwk, 'sha256');
      await expect(dpop.verify({ header, method: 'POST', url: URL })).resolves.toEqual({ jkt });
      expect(replay.recorded).toEqual([{ kind: 'dpop', value: `${jkt}.jti-0000-0001`, expiresAt: new Date((NOW_SECONDS + 120) * 1000) }]);
      await expect(dpop.verify({ header, method: 'POST', url: URL })).rejects.toMatchObject({
        code: 'dpop_proof_replayed',
        message: 'DPoP proof jti was already used',
      });
    });
  });
});
