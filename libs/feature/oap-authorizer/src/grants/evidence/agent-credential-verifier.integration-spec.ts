import { generateKeyPairSync, randomUUID, type KeyObject } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { FakeClock, loadConfig } from '@svc/config';
import { DomainError } from '@svc/errors';
import { createDataSource, runMigrations } from '@svc/persistence';
import { createTestDatabase, freePort, testEnv, type TestDatabase } from '@svc/testing';
import { OapAuthorizerConfig } from '../../oap-authorizer.config';
import { SignJWT, exportJWK } from 'jose';
import type { DataSource } from 'typeorm';
import { oapMigrations } from '../../migrations';
import { ReplayCache } from '../../shared/replay-cache';
import type { GrantRequest } from '../checks/cascade-step';
import { AgentEvidenceVerifier } from './agent-evidence-verifier';
import { JwksCache } from './jwks-cache';
import { sdDigest } from './sd-jwt';
import { TrustLists } from './trust-lists';

const US = 'https://us.example';
const V2 = 'https://www.w3.org/ns/credentials/v2';

/** Claims of a credential, whatever the format that carries them. */
interface Claims {
  iss?: string;
  sub?: string;
  aud?: string | string[];
  iat?: number;
  exp?: number;
  jti?: string;
  agent_type?: string;
  agent_model?: string;
}

type Issue = (claims: Claims, key: KeyObject, kid: string, alg?: string) => Promise<string>;

const disclose = (...parts: unknown[]): string => Buffer.from(JSON.stringify(parts)).toString('base64url');

/** SD-JWT with agent_type and agent_model selectively disclosed. */
const sdJwt: Issue = async ({ agent_type, agent_model, ...plain }, key, kid, alg = 'EdDSA') => {
  const disclosures = [
    agent_type !== undefined ? disclose(randomUUID(), 'agent_type', agent_type) : undefined,
    agent_model !== undefined ? disclose(randomUUID(), 'agent_model', agent_model) : undefined,
  ].filter((d): d is string => d !== undefined);
  const issued = await new SignJWT({ ...plain, _sd_alg: 'sha-256', _sd: disclosures.map(sdDigest) })
    .setProtectedHeader({ alg, kid, typ: 'dc+sd-jwt' })
    .sign(key);
  return `${issued}~${disclosures.map((d) => `${d}~`).join('')}`;
};

/** VC-JOSE: the payload is the credential; validity as validFrom/validUntil. */
const vcJose: Issue = async ({ iss, sub, iat, exp, jti, aud, agent_type, agent_model }, key, kid, alg = 'EdDSA') => {
  const credential: Record<string, unknown> = {
    '@context': [V2],
    type: ['VerifiableCredential', 'AgentCredential'],
    issuer: iss,
    id: jti,
    credentialSubject: { id: sub, agent_type, agent_model },
    validFrom: iat === undefined ? undefined : new Date(iat * 1000).toISOString(),
    validUntil: exp === undefined ? undefined : new Date(exp * 1000).toISOString(),
    aud,
  };
  return new SignJWT(JSON.parse(JSON.stringify(credential)) as Record<string, unknown>)
    .setProtectedHeader({ alg, kid, typ: 'vc+jwt', cty: 'vc' })
    .sign(key);
};

/** JWT-VC (VC Data Model 1.1 JWT encoding): registered claims outside, the credential in `vc`. */
const jwtVc: Issue = async ({ agent_type, agent_model, sub, ...registered }, key, kid, alg = 'EdDSA') =>
  new SignJWT({
    ...registered,
    sub,
    vc: {
      '@context': ['https://www.w3.org/2018/credentials/v1'],
      type: ['VerifiableCredential'],
      credentialSubject: { id: sub, agent_type, agent_model },
    },
  })
    .setProtectedHeader({ alg, kid, typ: 'JWT' })
    .sign(key);

describe('AgentEvidenceVerifier: SD-JWT and W3C VC credentials (real Postgres replay cache, loopback JWKS)', () => {
  const clock = new FakeClock('2026-03-04T10:30:00.000Z');
  const T = () => Math.floor(clock.now().getTime() / 1000);
  const idpKey = generateKeyPairSync('ed25519');
  const rogueKey = generateKeyPairSync('ed25519');
  let database: TestDatabase;
  let dataSource: DataSource;
  let jwksServer: Server;
  let verifier: AgentEvidenceVerifier;
  const request: GrantRequest = {
    applicationId: 'tp_us_a',
    agentId: 'agent_us_a',
    dpopJkt: 'jkt',
    scopes: ['payments:write'],
    actions: ['pay'],
    validUntil: new Date('2026-03-04T11:00:00Z'),
    delegationChain: [],
    metadata: { agent_type: 'assistant', agent_model: 'm-1' },
  };

  beforeAll(async () => {
    database = await createTestDatabase('oap_credentials');
    dataSource = createDataSource({ url: database.url, poolSize: 2, applicationName: 'oap-credentials-test' });
    await dataSource.initialize();
    await runMigrations(dataSource, oapMigrations);
    const port = await freePort();
    const closedPort = await freePort();
    const jwk = { ...(await exportJWK(idpKey.publicKey)), kid: 'k1' };
    jwksServer = createServer((_req, res) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk] })),
    );
    await new Promise<void>((resolve) => jwksServer.listen(port, '127.0.0.1', resolve));
    const trustLists = JSON.stringify({
      agent_credential_issuers: [
        { iss: 'https://idp.example', jwks_uri: `http://127.0.0.1:${port}/jwks`, kids: ['k1'] },
        { iss: 'https://idp-down.example', jwks_uri: `http://127.0.0.1:${closedPort}/jwks` },
      ],
    });
    const config = loadConfig(
      OapAuthorizerConfig,
      testEnv({ REGION: 'us', DATABASE_URL: database.url, BUS_PREFIX: 'unused', PUBLIC_BASE_URL: US, OAP_TRUST_LISTS: trustLists }),
    );
    verifier = new AgentEvidenceVerifier(new TrustLists(config), new JwksCache(), new ReplayCache(dataSource), clock, config);
  });

  afterAll(async () => {
    await dataSource?.destroy();
    await database?.drop();
    await new Promise((resolve) => jwksServer?.close(resolve));
  });

  async function refusal(token: string): Promise<{ code: string; kind: string; detail?: Record<string, unknown> }> {
    try {
      await verifier.verifyCredential(token, request);
    } catch (error) {
      if (error instanceof DomainError) return { code: error.code, kind: error.kind, detail: error.detail };
      throw error;
    }
    throw new Error('the credential was accepted');
  }

  describe.each([
    ['SD-JWT', sdJwt],
    ['VC-JOSE (vc+jwt)', vcJose],
    ['JWT-VC (vc claim)', jwtVc],
  ])('%s', (_format, issue: Issue) => {
    const claims = (overrides: Claims = {}): Claims => ({
      iss: 'https://idp.example',
      sub: 'agent_us_a',
      aud: [US],
      iat: T(),
      exp: T() + 600,
      jti: randomUUID(),
      agent_type: 'assistant',
      agent_model: 'm-1',
      ...overrides,
    });
    const credential = (overrides: Claims = {}, key = idpKey.privateKey, kid = 'k1') => issue(claims(overrides), key, kid);

    it('accepts a trusted, valid credential and answers its ID-token claims', async () => {
      const jti = randomUUID();
      await expect(verifier.verifyCredential(await credential({ jti }), request)).resolves.toMatchObject({
        iss: 'https://idp.example',
        sub: 'agent_us_a',
        jti,
        agent_model: 'm-1',
      });
    });

    it('accepts the fully-specified alg Ed25519 (RFC 9864) as it accepts EdDSA', async () => {
      const jti = randomUUID();
      await expect(
        verifier.verifyCredential(await issue(claims({ jti }), idpKey.privateKey, 'k1', 'Ed25519'), request),
      ).resolves.toMatchObject({ jti });
      expect(await refusal(await issue(claims(), rogueKey.privateKey, 'k1', 'Ed25519'))).toMatchObject({
        code: 'agent_credential_signature_invalid',
        detail: { reason: 'signature_mismatch' },
      });
    });

    it('agent_credential_malformed (400) when a required claim is missing', async () => {
      expect(await refusal(await credential({ jti: undefined }))).toMatchObject({
        code: 'agent_credential_malformed',
        kind: 'invalid',
        detail: { missing_claims: ['jti'] },
      });
    });

    it('untrusted_agent_credential_issuer (400) for an unknown iss and an unknown kid', async () => {
      expect(await refusal(await credential({ iss: 'https://evil.example' }))).toMatchObject({
        code: 'untrusted_agent_credential_issuer',
        kind: 'invalid',
      });
      expect(await refusal(await credential({}, idpKey.privateKey, 'k9'))).toMatchObject({
        code: 'untrusted_agent_credential_issuer',
        detail: { kid: 'k9' },
      });
    });

    it('agent_credential_signature_invalid (400) for a wrong issuer key and an unreachable JWKS', async () => {
      expect(await refusal(await credential({}, rogueKey.privateKey))).toMatchObject({
        code: 'agent_credential_signature_invalid',
        kind: 'invalid',
        detail: { reason: 'signature_mismatch' },
      });
      expect(await refusal(await credential({ iss: 'https://idp-down.example' }))).toMatchObject({
        code: 'agent_credential_signature_invalid',
        detail: { reason: 'jwks_unreachable' },
      });
    });

    it('agent_credential_expired (400) outside iat ≤ now < exp with 60 s of skew', async () => {
      expect(await refusal(await credential({ iat: T() - 700, exp: T() - 61 }))).toMatchObject({
        code: 'agent_credential_expired',
        kind: 'invalid',
      });
      expect(await refusal(await credential({ iat: T() + 120 }))).toMatchObject({ code: 'agent_credential_expired' });
      await expect(verifier.verifyCredential(await credential({ iat: T() - 700, exp: T() - 30 }), request)).resolves.toBeDefined();
    });

    it('agent_credential_audience_mismatch (400)', async () => {
      expect(await refusal(await credential({ aud: 'https://elsewhere.example' }))).toMatchObject({
        code: 'agent_credential_audience_mismatch',
        detail: { expected_audience: US },
      });
    });

    it('agent_metadata_mismatch and agent_type_outside_taxonomy from disclosed or subject claims', async () => {
      expect(await refusal(await credential({ agent_model: 'm-2' }))).toMatchObject({
        code: 'agent_metadata_mismatch',
        detail: { disagreeing_fields: ['agent_model'] },
      });
      expect(await refusal(await credential({ agent_type: 'robot' }))).toMatchObject({ code: 'agent_type_outside_taxonomy' });
    });

    it('agent_credential_replayed (409, conflict) for the same (iss, jti), and a refused token stays usable', async () => {
      const jti = randomUUID();
      expect(await refusal(await credential({ jti, aud: 'https://elsewhere.example' }))).toMatchObject({
        code: 'agent_credential_audience_mismatch',
      });
      const token = await credential({ jti });
      await verifier.verifyCredential(token, request);
      expect(await refusal(token)).toMatchObject({
        code: 'agent_credential_replayed',
        kind: 'conflict',
        detail: { iss: 'https://idp.example', jti },
      });
    });

    it('agent_credential_malformed over 16 KB', async () => {
      expect(await refusal(await credential({ agent_model: 'm'.repeat(16 * 1024) }))).toMatchObject({ code: 'agent_credential_malformed' });
    });
  });

  describe('SD-JWT specifics', () => {
    const base = (): Claims => ({
      iss: 'https://idp.example',
      sub: 'agent_us_a',
      aud: [US],
      iat: T(),
      exp: T() + 600,
      jti: randomUUID(),
      agent_type: 'assistant',
      agent_model: 'm-1',
    });

    it('refuses a tampered disclosure as agent_credential_malformed before any signature check', async () => {
      const token = await sdJwt(base(), idpKey.privateKey, 'k1');
      const [issued, typeDisclosure, modelDisclosure] = token.split('~');
      const tampered = disclose('salt', 'agent_model', 'm-1');
      const forged = `${issued}~${typeDisclosure}~${tampered}~`;
      expect(modelDisclosure).not.toBe(tampered);
      expect(await refusal(forged)).toMatchObject({
        code: 'agent_credential_malformed',
        kind: 'invalid',
        detail: { format: 'sd_jwt', disclosure_digest: sdDigest(tampered) },
      });
    });

    it('verifies a key-binding JWT against cnf.jwk and refuses one made with another key', async () => {
      const holder = generateKeyPairSync('ed25519');
      const claims = { ...base(), cnf: { jwk: await exportJWK(holder.publicKey) } };
      const bind = async (key: KeyObject, presented: string) =>
        `${presented}${await new SignJWT({ iat: T(), aud: US, nonce: randomUUID(), sd_hash: sdDigest(presented) }).setProtectedHeader({ alg: 'EdDSA', typ: 'kb+jwt' }).sign(key)}`;
      await expect(
        verifier.verifyCredential(await bind(holder.privateKey, await sdJwt(claims, idpKey.privateKey, 'k1')), request),
      ).resolves.toBeDefined();
      const wrongHolder = await bind(rogueKey.privateKey, await sdJwt({ ...claims, jti: randomUUID() }, idpKey.privateKey, 'k1'));
      expect(await refusal(wrongHolder)).toMatchObject({
        code: 'agent_credential_signature_invalid',
        detail: { reason: 'key_binding_mismatch', format: 'sd_jwt' },
      });
    });

    it('verifies a key-binding JWT signed with alg Ed25519 (RFC 9864)', async () => {
      const holder = generateKeyPairSync('ed25519');
      const presented = await sdJwt(
        { ...base(), cnf: { jwk: await exportJWK(holder.publicKey) } } as Claims,
        idpKey.privateKey,
        'k1',
        'Ed25519',
      );
      const kbJwt = await new SignJWT({ iat: T(), aud: US, nonce: randomUUID(), sd_hash: sdDigest(presented) })
        .setProtectedHeader({ alg: 'Ed25519', typ: 'kb+jwt' })
        .sign(holder.privateKey);
      await expect(verifier.verifyCredential(`${presented}${kbJwt}`, request)).resolves.toBeDefined();
    });

    it('refuses an SD-JWT issuer JWT signed with HS256 as an unsupported algorithm', async () => {
      const hs = await new SignJWT({ ...base(), _sd: [] }).setProtectedHeader({ alg: 'HS256', kid: 'k1' }).sign(Buffer.alloc(32, 1));
      expect(await refusal(`${hs}~`)).toMatchObject({ code: 'agent_credential_signature_invalid', detail: { reason: 'unsupported_alg' } });
    });
  });

  it('checks the edge shape of all three formats: 16 KB and a compact issuer JWT', async () => {
    const shape = (token: string) => {
      try {
        verifier.checkCredentialShape(token);
        return 'ok';
      } catch (error) {
        return error instanceof DomainError ? error.code : 'thrown';
      }
    };
    expect(shape(await sdJwt({ iss: 'x' }, idpKey.privateKey, 'k1'))).toBe('ok');
    expect(shape(await vcJose({ iss: 'x' }, idpKey.privateKey, 'k1'))).toBe('ok');
    expect(shape('a.b~c~')).toBe('agent_credential_malformed');
    expect(shape(`${'a'.repeat(16 * 1024)}.b.c~`)).toBe('agent_credential_malformed');
  });
});
