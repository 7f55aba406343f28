import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { ES256, digest, generateSalt } from '@sd-jwt/crypto-nodejs';
import { StatusList, createHeaderAndPayload } from '@sd-jwt/jwt-status-list';
import { SDJwtVcInstance } from '@sd-jwt/sd-jwt-vc';
import { FakeClock } from '@svc/config';
import { CompactSign, SignJWT, type JWK } from 'jose';
import { IssuerKeyError, type IssuerKeys } from './issuer-keys';
import { VerifyPresentation } from './verify-presentation';

const ISSUER = 'did:web:us.svc.example';
const STATUS_URI = 'https://us.svc.example/.well-known/credential-status/us-1';
const NOW = new Date('2026-03-04T10:30:00.000Z');
const seconds = Math.floor(NOW.getTime() / 1000);

/** Spec: POST /api/v1/presentations; SD-JWT (RFC 9901) §7.1–7.3, SD-JWT VC, Token Status List §8. */
describe('presentation checks', () => {
  const issuerKey = generateKeyPairSync('ed25519');
  let holder: { publicJwk: JWK; privateJwk: JWK };
  let statuses: number[];

  const issuerKeys = {
    trusted: (iss: string) =>
      iss === ISSUER
        ? { issuer: ISSUER, did_document_url: 'https://us.svc.example/.well-known/did.json', region: 'us', country: 'US' }
        : undefined,
    key: async (_issuer: unknown, kid: string): Promise<KeyObject> => {
      if (kid !== `${ISSUER}#oap-us-v1` && kid !== 'oap-us-v1') throw new IssuerKeyError('key_not_found');
      return issuerKey.publicKey;
    },
    statusListToken: async () => {
      const { header, payload } = createHeaderAndPayload(
        new StatusList(statuses, 1),
        { sub: STATUS_URI, iat: seconds, exp: seconds + 3600 },
        { alg: 'EdDSA', typ: 'statuslist+jwt', kid: 'oap-us-v1' },
      );
      return new CompactSign(Buffer.from(JSON.stringify(payload))).setProtectedHeader(header).sign(issuerKey.privateKey);
    },
  } as unknown as IssuerKeys;
  const verifier = new VerifyPresentation(issuerKeys, new FakeClock(NOW));

  async function wallet(): Promise<SDJwtVcInstance> {
    return new SDJwtVcInstance({
      hasher: digest,
      hashAlg: 'sha-256',
      saltGenerator: generateSalt,
      signer: (data: string) => Promise.resolve(sign(null, Buffer.from(data), issuerKey.privateKey).toString('base64url')),
      signAlg: 'EdDSA',
      kbSigner: await ES256.getSigner(holder.privateJwk),
      kbSignAlg: 'ES256',
    });
  }

  async function credential(overrides: Record<string, unknown> = {}, iss = ISSUER): Promise<string> {
    return (await wallet()).issue(
      {
        iss,
        iat: seconds - 60,
        exp: seconds + 3600,
        vct: 'urn:svc:vct:consent_receipt:1',
        cnf: { jwk: holder.publicJwk },
        status: { status_list: { idx: 3, uri: STATUS_URI } },
        record_id: 'crec_1',
        purposes: ['newsletter'],
        ...overrides,
      },
      { _sd: ['record_id', 'purposes'] } as never,
      { header: { kid: `${ISSUER}#oap-us-v1`, typ: 'dc+sd-jwt' } },
    );
  }

  const present = async (sdJwt: string, kb: { nonce?: string; aud?: string; iat?: number } = {}) =>
    (await wallet()).present(
      sdJwt,
      { purposes: true },
      { kb: { payload: { iat: kb.iat ?? seconds, aud: kb.aud ?? 'tp_eu_verifier', nonce: kb.nonce ?? 'n-1' } } },
    );
  const failure = (result: Awaited<ReturnType<VerifyPresentation['execute']>>) => result.checks.find((check) => check.result === 'failed');
  const expected = { nonce: 'n-1', audience: 'tp_eu_verifier' };

  beforeAll(async () => {
    const keys = await ES256.generateKeyPair();
    holder = { publicJwk: keys.publicKey as JWK, privateJwk: keys.privateKey as JWK };
  });
  beforeEach(() => {
    statuses = new Array<number>(16).fill(0);
  });

  it('passes every check and returns only the disclosed claims', async () => {
    const result = await verifier.execute(await present(await credential()), expected);
    expect(result.valid).toBe(true);
    expect(result.checks.every((check) => check.result === 'passed')).toBe(true);
    expect(result.claims).toEqual({ purposes: ['newsletter'] });
    expect(result).toMatchObject({ issuer: ISSUER, issuerRegion: 'us', issuerCountry: 'US', format: 'dc+sd-jwt' });
  });

  it('names the failing check, and the later ones did not run', async () => {
    const result = await verifier.execute(await present(await credential({}, 'did:web:evil.example')), expected);
    expect(result.valid).toBe(false);
    expect(failure(result)).toEqual({ check: 'issuer_trusted', result: 'failed', reason: 'untrusted_issuer' });
    expect(result.checks.find((check) => check.check === 'status')).toEqual({ check: 'status', result: 'not_run' });
    expect(result.claims).toEqual({});
  });

  it('refuses a changed issuer payload (signature) and a disclosure the issuer did not sign (disclosures)', async () => {
    const presentation = await present(await credential());
    const [jwt, ...rest] = presentation.split('~');
    const [h, p, s] = jwt!.split('.');
    const tampered = Buffer.from(
      JSON.stringify({ ...JSON.parse(Buffer.from(p!, 'base64url').toString()), exp: seconds + 99_999 }),
    ).toString('base64url');
    expect(failure(await verifier.execute([`${h}.${tampered}.${s}`, ...rest].join('~'), expected))).toMatchObject({
      check: 'signature',
      reason: 'signature_invalid',
    });
    const forged = Buffer.from(JSON.stringify(['salt', 'purposes', ['everything']])).toString('base64url');
    const withForged = [jwt, forged, ...rest.slice(-1)].join('~');
    expect(failure(await verifier.execute(withForged, expected))).toMatchObject({
      check: 'disclosures',
      reason: 'unreferenced_disclosure',
    });
  });

  it('refuses an expired credential', async () => {
    expect(
      failure(await verifier.execute(await present(await credential({ iat: seconds - 7200, exp: seconds - 3600 })), expected)),
    ).toMatchObject({ check: 'validity_period', reason: 'expired' });
  });

  it('checks the key binding: present, nonce, audience, freshness, sd_hash, holder key', async () => {
    const sdJwt = await credential();
    expect(failure(await verifier.execute(sdJwt, expected))).toMatchObject({ check: 'key_binding', reason: 'key_binding_missing' });
    expect(failure(await verifier.execute(await present(sdJwt, { nonce: 'other' }), expected))).toMatchObject({
      check: 'key_binding',
      reason: 'nonce_mismatch',
    });
    expect(failure(await verifier.execute(await present(sdJwt, { aud: 'tp_us_someone' }), expected))).toMatchObject({
      check: 'key_binding',
      reason: 'audience_mismatch',
    });
    expect(failure(await verifier.execute(await present(sdJwt, { iat: seconds - 3600 }), expected))).toMatchObject({
      check: 'key_binding',
      reason: 'key_binding_stale',
    });
    // A KB-JWT over another presentation (fewer disclosures) does not fit this one.
    const other = await present(sdJwt);
    const parts = other.split('~');
    const full = (await wallet()).present(sdJwt, { purposes: true, record_id: true });
    const spliced = `${(await full).split('~').slice(0, -1).join('~')}~${parts.at(-1)!}`;
    expect(failure(await verifier.execute(spliced, expected))).toMatchObject({ check: 'key_binding', reason: 'sd_hash_mismatch' });
    // Another key signed the KB-JWT.
    const stranger = generateKeyPairSync('ed25519');
    const kb = await new SignJWT({ nonce: 'n-1', aud: 'tp_eu_verifier', sd_hash: 'x' })
      .setProtectedHeader({ alg: 'EdDSA', typ: 'kb+jwt' })
      .setIssuedAt(seconds)
      .sign(stranger.privateKey);
    expect(failure(await verifier.execute(`${parts.slice(0, -1).join('~')}~${kb}`, expected))).toMatchObject({
      check: 'key_binding',
      reason: 'key_binding_signature_invalid',
    });
  });

  it('refuses a revoked credential from its status list entry', async () => {
    statuses[3] = 1;
    expect(failure(await verifier.execute(await present(await credential()), expected))).toMatchObject({
      check: 'status',
      reason: 'revoked',
    });
  });

  it('fails a pathological presentation at a named check, never throws', async () => {
    const deep = Buffer.from(`${'['.repeat(20_000)}${']'.repeat(20_000)}`).toString('base64url');
    const sdJwt = await credential();
    const [jwt] = sdJwt.split('~');
    const result = await verifier.execute(`${jwt}~${deep}~`, expected);
    expect(result.valid).toBe(false);
    expect(failure(result)).toMatchObject({ check: 'disclosures' });
    expect(failure(await verifier.execute('~~~', expected))).toMatchObject({ check: 'format' });
  });
});
