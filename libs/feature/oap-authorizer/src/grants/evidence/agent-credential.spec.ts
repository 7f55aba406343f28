import { generateKeyPairSync } from 'node:crypto';
import { SignJWT, exportJWK } from 'jose';
import { decodeAgentCredential } from './agent-credential';
import { CredentialFormatError } from './credential-format-error';
import { KeyBindingError, sdDigest, splitSdJwt, verifyKeyBinding } from './sd-jwt';

const issuerKey = generateKeyPairSync('ed25519');
const holderKey = generateKeyPairSync('ed25519');
const otherKey = generateKeyPairSync('ed25519');
const NOW = 1_772_620_200; // 2026-03-04T10:30:00Z
const US = 'https://us.example';

const disclose = (...parts: unknown[]): string => Buffer.from(JSON.stringify(parts)).toString('base64url');
const sign = (
  claims: Record<string, unknown>,
  header: Record<string, unknown> = { alg: 'EdDSA', kid: 'k1', typ: 'dc+sd-jwt' },
  key = issuerKey.privateKey,
) => new SignJWT(claims).setProtectedHeader(header as { alg: string }).sign(key);

const BASE = { iss: 'https://idp.example', aud: [US], iat: NOW, exp: NOW + 600 };
const MODEL = disclose('salt-1', 'agent_model', 'm-1');
const TYPE = disclose('salt-2', 'agent_type', 'assistant');
const JTI = disclose('salt-3', 'jti', 'jti-1');

/** An SD-JWT whose agent_model, agent_type and jti are selectively disclosable. */
async function sdJwt(
  disclosures: string[] = [MODEL, TYPE, JTI],
  extra: Record<string, unknown> = {},
  digests: string[] = [MODEL, TYPE, JTI].map(sdDigest),
): Promise<string> {
  const issued = await sign({ ...BASE, sub: 'agent_us_a', _sd_alg: 'sha-256', _sd: digests, ...extra });
  return `${issued}~${disclosures.map((d) => `${d}~`).join('')}`;
}

async function formatError(run: () => Promise<unknown>): Promise<CredentialFormatError> {
  try {
    await run();
  } catch (error) {
    if (error instanceof CredentialFormatError) return error;
    throw error;
  }
  throw new Error('expected a CredentialFormatError');
}

describe('agent_credential formats', () => {
  describe('OIDC-A ID token (compact JWT)', () => {
    it('passes the signed claims through unchanged', async () => {
      const token = await sign({ ...BASE, sub: 'agent_us_a', jti: 'j', agent_model: 'm-1' }, { alg: 'EdDSA', kid: 'k1', typ: 'JWT' });
      const decoded = await decodeAgentCredential(token);
      expect(decoded).toMatchObject({ format: 'id_token', signedJwt: token, claims: { iss: 'https://idp.example', agent_model: 'm-1' } });
    });

    it('refuses an unparseable JWT', async () => {
      expect((await formatError(() => decodeAgentCredential('a.b.c'))).detail).toEqual({ format: 'id_token' });
    });
  });

  describe('SD-JWT', () => {
    it('verifies every disclosure digest and rebuilds the claims without _sd and _sd_alg', async () => {
      const token = await sdJwt();
      const decoded = await decodeAgentCredential(token);
      expect(decoded.format).toBe('sd_jwt');
      expect(decoded.signedJwt).toBe(token.split('~')[0]);
      expect(decoded.claims).toEqual({ ...BASE, sub: 'agent_us_a', agent_model: 'm-1', agent_type: 'assistant', jti: 'jti-1' });
    });

    it('leaves undisclosed claims and decoy digests out', async () => {
      const decoded = await decodeAgentCredential(await sdJwt([MODEL], {}, [sdDigest(MODEL), sdDigest(TYPE), sdDigest('decoy')]));
      expect(decoded.claims).toEqual({ ...BASE, sub: 'agent_us_a', agent_model: 'm-1' });
    });

    it('rebuilds nested objects and array elements', async () => {
      const city = disclose('s4', 'city', 'Paris');
      const element = disclose('s5', 'pay');
      const decoded = await decodeAgentCredential(
        await sdJwt(
          [city, element],
          { place: { _sd: [sdDigest(city)] }, actions: ['quote', { '...': sdDigest(element) }, { '...': sdDigest('undisclosed') }] },
          [],
        ),
      );
      expect(decoded.claims).toMatchObject({ place: { city: 'Paris' }, actions: ['quote', 'pay'] });
    });

    it('refuses a tampered disclosure: its digest is not in the signed payload', async () => {
      const tampered = disclose('salt-1', 'agent_model', 'm-evil');
      const token = (await sdJwt()).replace(MODEL, tampered);
      const refused = await formatError(() => decodeAgentCredential(token));
      expect(refused.message).toMatch(/not in the signed payload/);
      expect(refused.detail).toEqual({ format: 'sd_jwt', disclosure_digest: sdDigest(tampered) });
    });

    it('refuses a disclosure whose digest the issuer never listed', async () => {
      const token = await sdJwt([MODEL, TYPE, JTI], {}, [sdDigest(MODEL), sdDigest(JTI)]);
      expect((await formatError(() => decodeAgentCredential(token))).detail).toMatchObject({ disclosure_digest: sdDigest(TYPE) });
    });

    it.each([
      ['a digest algorithm other than sha-256', () => sdJwt(undefined, { _sd_alg: 'sha-512' }), /_sd_alg/],
      ['the same disclosure twice', () => sdJwt([MODEL, MODEL]), /twice/],
      ['a digest listed twice', () => sdJwt([MODEL], {}, [sdDigest(MODEL), sdDigest(MODEL)]), /more than once/],
      ['a disclosure overwriting a signed claim', () => sdJwt([MODEL], { agent_model: 'm-0' }), /overwrites/],
      ['a disclosure of _sd', () => sdJwt([disclose('s', '_sd', [])], {}, [sdDigest(disclose('s', '_sd', []))]), /may not disclose/],
      ['an array-element disclosure answering _sd', () => sdJwt([disclose('s', 'x')], {}, [sdDigest(disclose('s', 'x'))]), /array-element/],
      ['a disclosure that is not JSON', () => sdJwt(['bm90IGpzb24'], {}, [sdDigest('bm90IGpzb24')]), /not base64url JSON/],
      ['a disclosure of the wrong arity', () => sdJwt([disclose('s')], {}, [sdDigest(disclose('s'))]), /\[salt, name, value\]/],
      ['_sd that is not an array', () => sdJwt([], { _sd: 'x' }), /_sd must be an array/],
      // The checks below are made here because @sd-jwt/core would accept these credentials.
      [
        'an object-property disclosure answering an array-element digest',
        () => sdJwt([MODEL], { list: [{ '...': sdDigest(MODEL) }] }, []),
        /object-property/,
      ],
      [
        'an array-element digest object with other keys',
        () => sdJwt([disclose('s', 'x')], { list: [{ '...': sdDigest(disclose('s', 'x')), y: 1 }] }, []),
        /other keys/,
      ],
      [
        'a disclosure of __proto__',
        () => sdJwt([disclose('s', '__proto__', { iss: 'x' })], {}, [sdDigest(disclose('s', '__proto__', { iss: 'x' }))]),
        /may not disclose __proto__/,
      ],
      ['a digest that is not a base64url SHA-256 digest', () => sdJwt([], { list: [{ '...': 'constructor' }] }, []), /base64url SHA-256/],
      ['a non-string _sd_alg', () => sdJwt(undefined, { _sd_alg: 256 }), /_sd_alg/],
    ])('refuses %s', async (_name, build, message) => {
      const token = await build();
      expect((await formatError(() => decodeAgentCredential(token))).message).toMatch(message);
    });

    it.each([
      ['an empty disclosure', async () => (await sdJwt()).replace('~', '~~')],
      ['a trailing part that is not a JWT', async () => `${await sdJwt()}not-a-jwt`],
      ['an issuer part that is not a JWT', async () => `abc~${MODEL}~`],
    ])('refuses %s as malformed', async (_name, build) => {
      const token = await build();
      expect((await formatError(() => decodeAgentCredential(token))).detail).toMatchObject({ format: 'sd_jwt' });
    });
  });

  describe('SD-JWT key binding', () => {
    async function bound(
      kb: Record<string, unknown> = {},
      header: Record<string, unknown> = { alg: 'EdDSA', typ: 'kb+jwt' },
      key = holderKey.privateKey,
    ) {
      const presented = await sdJwt(undefined, { cnf: { jwk: await exportJWK(holderKey.publicKey) } });
      const kbJwt = await new SignJWT({ iat: NOW, aud: US, nonce: 'n-1', sd_hash: sdDigest(presented), ...kb })
        .setProtectedHeader(header as { alg: string })
        .sign(key);
      return `${presented}${kbJwt}`;
    }
    const options = { audience: US, nowSeconds: NOW, skewSeconds: 60, algorithms: ['EdDSA', 'ES256'] };
    async function failure(token: string): Promise<string> {
      const decoded = await decodeAgentCredential(token);
      try {
        await verifyKeyBinding(decoded.sdJwt!, decoded.claims.cnf, options);
      } catch (error) {
        if (error instanceof KeyBindingError) return error.failure;
        throw error;
      }
      return 'none';
    }

    it('accepts a key-binding JWT signed by cnf.jwk over this presentation', async () => {
      const token = await bound();
      expect(splitSdJwt(token).keyBindingJwt).toBeDefined();
      expect(await failure(token)).toBe('none');
    });

    it('refuses a wrong holder key or an sd_hash of another presentation as a signature failure', async () => {
      expect(await failure(await bound({}, undefined, otherKey.privateKey))).toBe('signature');
      expect(await failure(await bound({ sd_hash: sdDigest('other~') }))).toBe('signature');
    });

    it('refuses a wrong typ, missing claims or no cnf as malformed', async () => {
      expect(await failure(await bound({}, { alg: 'EdDSA', typ: 'JWT' }))).toBe('malformed');
      expect(await failure(await bound({ nonce: undefined }))).toBe('malformed');
      const withoutCnf = await sdJwt();
      const kbJwt = await new SignJWT({ iat: NOW, aud: US, nonce: 'n', sd_hash: sdDigest(withoutCnf) })
        .setProtectedHeader({ alg: 'EdDSA', typ: 'kb+jwt' })
        .sign(holderKey.privateKey);
      expect(await failure(`${withoutCnf}${kbJwt}`)).toBe('malformed');
    });

    it('refuses a key-binding JWT with a non-string nonce or without a signature (alg none) as malformed', async () => {
      expect(await failure(await bound({ nonce: 7 }))).toBe('malformed');
      const presented = await sdJwt(undefined, { cnf: { jwk: await exportJWK(holderKey.publicKey) } });
      const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
      const unsigned = `${part({ alg: 'none', typ: 'kb+jwt' })}.${part({ iat: NOW, aud: US, nonce: 'n', sd_hash: sdDigest(presented) })}.`;
      expect(await failure(`${presented}${unsigned}`)).toBe('malformed');
    });

    it('refuses a stale key-binding JWT and one for another audience', async () => {
      expect(await failure(await bound({ iat: NOW - 120 }))).toBe('expired');
      expect(await failure(await bound({ aud: 'https://elsewhere.example' }))).toBe('audience');
    });
  });

  describe('W3C VC secured as a JWT', () => {
    const V2 = 'https://www.w3.org/ns/credentials/v2';
    const subject = { id: 'agent_us_a', agent_type: 'assistant', agent_model: 'm-1', colour: 'blue' };

    it('maps a VC-JOSE credential (typ vc+jwt): issuer, credentialSubject.id, id, validFrom/validUntil', async () => {
      const token = await sign(
        {
          '@context': [V2],
          type: ['VerifiableCredential', 'AgentCredential'],
          id: 'urn:uuid:1',
          issuer: { id: 'https://idp.example' },
          validFrom: '2026-03-04T10:00:00Z',
          validUntil: '2026-03-04T11:00:00Z',
          credentialSubject: subject,
          aud: US,
        },
        { alg: 'EdDSA', kid: 'k1', typ: 'vc+jwt', cty: 'vc' },
      );
      const decoded = await decodeAgentCredential(token);
      expect(decoded.format).toBe('vc');
      expect(decoded.claims).toEqual({
        iss: 'https://idp.example',
        sub: 'agent_us_a',
        jti: 'urn:uuid:1',
        aud: US,
        iat: NOW - 1800,
        exp: NOW + 1800,
        agent_type: 'assistant',
        agent_model: 'm-1',
      });
    });

    it('maps a JWT-VC (vc claim) and takes the narrowest validity window', async () => {
      const token = await sign(
        {
          iss: 'https://idp.example',
          sub: 'agent_us_a',
          jti: 'j-1',
          aud: [US],
          nbf: NOW - 60,
          iat: NOW - 120,
          exp: NOW + 600,
          vc: {
            '@context': ['https://www.w3.org/2018/credentials/v1'],
            type: 'VerifiableCredential',
            credentialSubject: subject,
            expirationDate: '2026-03-04T10:35:00Z',
          },
        },
        { alg: 'EdDSA', kid: 'k1', typ: 'JWT' },
      );
      expect((await decodeAgentCredential(token)).claims).toMatchObject({
        iss: 'https://idp.example',
        sub: 'agent_us_a',
        jti: 'j-1',
        iat: NOW - 60,
        exp: NOW + 300,
        agent_model: 'm-1',
      });
    });

    it('recognises application/vc+jwt and a VC secured as an SD-JWT', async () => {
      const vc = {
        '@context': [V2],
        type: ['VerifiableCredential'],
        issuer: 'https://idp.example',
        credentialSubject: { id: 'agent_us_a' },
        aud: US,
        iat: NOW,
        exp: NOW + 60,
        jti: 'j',
      };
      expect((await decodeAgentCredential(await sign(vc, { alg: 'EdDSA', typ: 'application/vc+jwt' }))).format).toBe('vc');
      const model = disclose('s', 'agent_model', 'm-1');
      const sd = await sign({ ...vc, credentialSubject: { id: 'agent_us_a', _sd: [sdDigest(model)] } }, { alg: 'EdDSA', typ: 'vc+sd-jwt' });
      const decoded = await decodeAgentCredential(`${sd}~${model}~`);
      expect(decoded).toMatchObject({ format: 'sd_jwt', claims: { iss: 'https://idp.example', sub: 'agent_us_a', agent_model: 'm-1' } });
    });

    it('leaves unmapped claims absent for the required-claims check', async () => {
      const token = await sign(
        { '@context': [V2], type: ['VerifiableCredential'], issuer: 'https://idp.example', credentialSubject: {} },
        { alg: 'EdDSA', typ: 'vc+jwt' },
      );
      expect((await decodeAgentCredential(token)).claims).toEqual({ iss: 'https://idp.example' });
    });

    it.each([
      ['iss and issuer disagree', { iss: 'https://other.example' }, /disagree/],
      ['credentialSubject.id and sub disagree', { sub: 'agent_us_b' }, /disagree/],
      ['no VerifiableCredential type', { type: ['AgentCredential'] }, /VerifiableCredential/],
      ['a context that is not a VC base context', { '@context': ['https://example.com/ctx'] }, /@context/],
      ['two subjects', { credentialSubject: [subject, subject] }, /exactly one credentialSubject/],
      ['a validUntil that is not a date-time', { validUntil: 'tomorrow' }, /validUntil/],
      ['an exp that is not a NumericDate', { exp: '2026' }, /exp/],
    ])('refuses a credential where %s', async (_name, override, message) => {
      const token = await sign(
        {
          '@context': [V2],
          type: ['VerifiableCredential'],
          issuer: 'https://idp.example',
          credentialSubject: subject,
          aud: US,
          ...override,
        },
        { alg: 'EdDSA', typ: 'vc+jwt' },
      );
      expect((await formatError(() => decodeAgentCredential(token))).message).toMatch(message);
    });
  });
});
