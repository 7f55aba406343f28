import { createHash, generateKeyPairSync, randomUUID, type KeyObject } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { freePort } from '@svc/testing';
import { SignJWT, exportJWK } from 'jose';
import { FakeClock, startRegions, type TestRegions } from '../support/regions';
import { createAgent, createApp, createAuthority, grantBody, newAgentKey, requestGrant, type AgentKey, type TestApp } from './support';

const V2 = 'https://www.w3.org/ns/credentials/v2';
const disclose = (...parts: unknown[]): string => Buffer.from(JSON.stringify(parts)).toString('base64url');
const digest = (text: string): string => createHash('sha256').update(text, 'ascii').digest('base64url');

/** Spec: OAP grant request (agent_credential: compact JWT, SD-JWT or W3C VC), OIDC-A credential errors; issue 3. */
describe('agent_credential as SD-JWT and as a JWT-secured W3C VC', () => {
  const clock = new FakeClock('2026-03-04T10:30:00.000Z');
  const T = () => Math.floor(clock.now().getTime() / 1000);
  const idpKey = generateKeyPairSync('ed25519');
  const rogueKey = generateKeyPairSync('ed25519');
  let jwksServer: Server;
  let stack: TestRegions;
  let us: string;
  let app: TestApp;
  let key: AgentKey;
  let agentId: string;

  /** SD-JWT: agent_type and agent_model are selectively disclosed, the rest signed in the clear. */
  async function sdJwt(
    overrides: Record<string, unknown> = {},
    signer: KeyObject = idpKey.privateKey,
    kid = 'k1',
  ): Promise<{ token: string; disclosures: string[]; issued: string }> {
    const disclosures = [disclose(randomUUID(), 'agent_type', 'assistant'), disclose(randomUUID(), 'agent_model', 'm-1')];
    const claims = {
      iss: 'https://idp.example',
      sub: agentId,
      aud: [us],
      iat: T(),
      exp: T() + 600,
      jti: randomUUID(),
      _sd_alg: 'sha-256',
      _sd: disclosures.map(digest),
      ...overrides,
    };
    const issued = await new SignJWT(claims).setProtectedHeader({ alg: 'EdDSA', kid, typ: 'dc+sd-jwt' }).sign(signer);
    return { token: `${issued}~${disclosures.map((d) => `${d}~`).join('')}`, disclosures, issued };
  }

  /** VC-JOSE (`typ` vc+jwt): the payload is the credential. */
  function vcJose(
    overrides: Record<string, unknown> = {},
    subject: Record<string, unknown> = {},
    signer: KeyObject = idpKey.privateKey,
    kid = 'k1',
  ): Promise<string> {
    const credential = {
      '@context': [V2],
      type: ['VerifiableCredential', 'AgentCredential'],
      id: `urn:uuid:${randomUUID()}`,
      issuer: 'https://idp.example',
      validFrom: new Date((T() - 60) * 1000).toISOString(),
      validUntil: new Date((T() + 600) * 1000).toISOString(),
      credentialSubject: { id: agentId, agent_type: 'assistant', agent_model: 'm-1', ...subject },
      aud: us,
      ...overrides,
    };
    return new SignJWT(credential).setProtectedHeader({ alg: 'EdDSA', kid, typ: 'vc+jwt', cty: 'vc' }).sign(signer);
  }

  /** JWT-VC (VC Data Model 1.1): registered claims outside, the credential in `vc`. */
  function jwtVc(overrides: Record<string, unknown> = {}): Promise<string> {
    const vc = {
      '@context': ['https://www.w3.org/2018/credentials/v1'],
      type: ['VerifiableCredential'],
      credentialSubject: { id: agentId, agent_type: 'assistant', agent_model: 'm-1' },
    };
    return new SignJWT({ iss: 'https://idp.example', sub: agentId, aud: us, nbf: T(), exp: T() + 600, jti: randomUUID(), vc, ...overrides })
      .setProtectedHeader({ alg: 'EdDSA', kid: 'k1', typ: 'JWT' })
      .sign(idpKey.privateKey);
  }

  const grant = (body: Record<string, unknown>) =>
    requestGrant(us, app, key, grantBody(agentId, key, { agent_metadata: { agent_type: 'assistant', agent_model: 'm-1' }, ...body }), {
      now: clock.now(),
    });

  beforeAll(async () => {
    const port = await freePort();
    const closedPort = await freePort();
    const idpJwk = { ...(await exportJWK(idpKey.publicKey)), kid: 'k1', alg: 'EdDSA' };
    jwksServer = createServer((req, res) => {
      if (req.url === '/idp') return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [idpJwk] }));
      return res.writeHead(500).end();
    });
    await new Promise<void>((resolve) => jwksServer.listen(port, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${port}`;
    const trustLists = JSON.stringify({
      agent_credential_issuers: [
        { iss: 'https://idp.example', jwks_uri: `${base}/idp`, kids: ['k1'] },
        { iss: 'https://idp-down.example', jwks_uri: `http://127.0.0.1:${closedPort}/jwks` },
        { iss: 'https://idp-500.example', jwks_uri: `${base}/500` },
      ],
      attestation_providers: [],
    });
    stack = await startRegions('oap_cred_formats', { clock, regions: ['us'], env: { OAP_TRUST_LISTS: trustLists } });
    us = stack.url.us;
    app = await createApp(stack);
    key = await newAgentKey();
    agentId = await createAgent(us, app, { manifest: true });
    await createAuthority(us, app, agentId);
  });
  afterAll(async () => {
    await stack?.close();
    await new Promise((resolve) => jwksServer?.close(resolve));
  });

  async function expectError(
    res: { status: number; body: Record<string, unknown> },
    status: number,
    code: string,
    detail?: Record<string, unknown>,
  ) {
    expect({ status: res.status, code: res.body.reason_code }).toEqual({ status, code });
    if (detail) expect(res.body.detail).toMatchObject(detail);
  }

  describe('SD-JWT', () => {
    it('allows a trusted SD-JWT whose disclosed claims agree with agent_metadata', async () => {
      const res = await grant({ agent_credential: (await sdJwt()).token });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ decision: 'allow' });
    });

    it('allows an SD-JWT presenting fewer disclosures than issued', async () => {
      const { issued, disclosures } = await sdJwt();
      expect((await grant({ agent_credential: `${issued}~${disclosures[1]}~` })).status).toBe(201);
    });

    it('agent_credential_malformed for a tampered disclosure and for a disclosure the issuer never listed', async () => {
      const { issued, disclosures } = await sdJwt();
      const tampered = disclose('salt', 'agent_model', 'm-1');
      await expectError(await grant({ agent_credential: `${issued}~${disclosures[0]}~${tampered}~` }), 400, 'agent_credential_malformed', {
        format: 'sd_jwt',
        disclosure_digest: digest(tampered),
      });
      const unlisted = await sdJwt({ _sd: [] });
      await expectError(await grant({ agent_credential: unlisted.token }), 400, 'agent_credential_malformed');
    });

    it('agent_credential_malformed for a missing required claim and over 16 KB (at the edge)', async () => {
      await expectError(await grant({ agent_credential: (await sdJwt({ jti: undefined })).token }), 400, 'agent_credential_malformed', {
        missing_claims: ['jti'],
      });
      const { token } = await sdJwt();
      await expectError(
        await grant({ agent_credential: `${token}${disclose('x'.repeat(16 * 1024))}~` }),
        400,
        'agent_credential_malformed',
      );
    });

    it('untrusted_agent_credential_issuer for an unknown iss and an unknown kid', async () => {
      await expectError(
        await grant({ agent_credential: (await sdJwt({ iss: 'https://evil.example' })).token }),
        400,
        'untrusted_agent_credential_issuer',
      );
      await expectError(
        await grant({ agent_credential: (await sdJwt({}, idpKey.privateKey, 'k9')).token }),
        400,
        'untrusted_agent_credential_issuer',
        { kid: 'k9' },
      );
    });

    it('agent_credential_signature_invalid for a wrong issuer key and each JWKS failure', async () => {
      await expectError(
        await grant({ agent_credential: (await sdJwt({}, rogueKey.privateKey)).token }),
        400,
        'agent_credential_signature_invalid',
      );
      await expectError(
        await grant({ agent_credential: (await sdJwt({ iss: 'https://idp-down.example' })).token }),
        400,
        'agent_credential_signature_invalid',
        { reason: 'jwks_unreachable' },
      );
      await expectError(
        await grant({ agent_credential: (await sdJwt({ iss: 'https://idp-500.example' })).token }),
        400,
        'agent_credential_signature_invalid',
        { reason: 'jwks_fetch_failed' },
      );
    });

    it('agent_credential_expired, agent_credential_audience_mismatch, agent_metadata_mismatch', async () => {
      await expectError(
        await grant({ agent_credential: (await sdJwt({ iat: T() - 700, exp: T() - 61 })).token }),
        400,
        'agent_credential_expired',
      );
      await expectError(
        await grant({ agent_credential: (await sdJwt({ aud: 'https://elsewhere.example' })).token }),
        400,
        'agent_credential_audience_mismatch',
      );
      await expectError(
        await grant({ agent_credential: (await sdJwt()).token, agent_metadata: { agent_model: 'm-2' } }),
        400,
        'agent_metadata_mismatch',
        { disagreeing_fields: ['agent_model'] },
      );
    });

    it('agent_credential_replayed (409) for the same (iss, jti)', async () => {
      const { token } = await sdJwt();
      expect((await grant({ agent_credential: token })).status).toBe(201);
      await expectError(await grant({ agent_credential: token }), 409, 'agent_credential_replayed');
    });
  });

  describe('W3C VC secured as a JWT', () => {
    it('allows a VC-JOSE credential (vc+jwt) and a JWT-VC (vc claim)', async () => {
      expect((await grant({ agent_credential: await vcJose() })).status).toBe(201);
      expect((await grant({ agent_credential: await jwtVc() })).status).toBe(201);
    });

    it('agent_credential_malformed when it is not a VerifiableCredential or lacks an audience', async () => {
      await expectError(await grant({ agent_credential: await vcJose({ type: ['AgentCredential'] }) }), 400, 'agent_credential_malformed', {
        format: 'vc',
      });
      await expectError(await grant({ agent_credential: await vcJose({ aud: undefined }) }), 400, 'agent_credential_malformed', {
        missing_claims: ['aud'],
      });
    });

    it('untrusted_agent_credential_issuer, agent_credential_signature_invalid', async () => {
      await expectError(
        await grant({ agent_credential: await vcJose({ issuer: { id: 'https://evil.example' } }) }),
        400,
        'untrusted_agent_credential_issuer',
      );
      await expectError(
        await grant({ agent_credential: await vcJose({}, {}, idpKey.privateKey, 'k9') }),
        400,
        'untrusted_agent_credential_issuer',
      );
      await expectError(
        await grant({ agent_credential: await vcJose({}, {}, rogueKey.privateKey) }),
        400,
        'agent_credential_signature_invalid',
      );
      await expectError(
        await grant({ agent_credential: await vcJose({ issuer: 'https://idp-down.example' }) }),
        400,
        'agent_credential_signature_invalid',
        { reason: 'jwks_unreachable' },
      );
    });

    it('agent_credential_expired past validUntil (beyond 60 s) and before validFrom', async () => {
      await expectError(
        await grant({ agent_credential: await vcJose({ validUntil: new Date((T() - 61) * 1000).toISOString() }) }),
        400,
        'agent_credential_expired',
      );
      await expectError(
        await grant({ agent_credential: await vcJose({ validFrom: new Date((T() + 120) * 1000).toISOString() }) }),
        400,
        'agent_credential_expired',
      );
      await expectError(await grant({ agent_credential: await jwtVc({ exp: T() - 61 }) }), 400, 'agent_credential_expired');
    });

    it('agent_credential_audience_mismatch, agent_metadata_mismatch, agent_type_outside_taxonomy', async () => {
      await expectError(
        await grant({ agent_credential: await vcJose({ aud: 'https://elsewhere.example' }) }),
        400,
        'agent_credential_audience_mismatch',
      );
      await expectError(await grant({ agent_credential: await vcJose({}, { agent_type: 'coding' }) }), 400, 'agent_metadata_mismatch', {
        disagreeing_fields: ['agent_type'],
      });
      await expectError(await grant({ agent_credential: await vcJose({}, { agent_type: 'robot' }) }), 400, 'agent_type_outside_taxonomy');
    });

    it('agent_credential_replayed (409) for the same (issuer, id)', async () => {
      const token = await vcJose();
      expect((await grant({ agent_credential: token })).status).toBe(201);
      await expectError(await grant({ agent_credential: token }), 409, 'agent_credential_replayed');
    });
  });
});
