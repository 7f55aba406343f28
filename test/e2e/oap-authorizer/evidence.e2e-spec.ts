import { createHash, generateKeyPairSync, randomUUID, type KeyObject } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { freePort, http } from '@svc/testing';
import { SignJWT, exportJWK } from 'jose';
import { FakeClock, startRegions, type TestRegions } from '../support/regions';
import {
  createAgent,
  createApp,
  createAuthority,
  dpopProof,
  grantBody,
  newAgentKey,
  requestGrant,
  type AgentKey,
  type TestApp,
} from './support';

const FORMAT = 'urn:svc:agent_attestation:vendor-jwt-v1';

/** Spec: OIDC-A credential errors, Attestation errors, agent_attestation block, oap-attestation; issue 3 Deliver 6, 7. */
describe('agent credentials and attestations against deploy-managed trust lists', () => {
  const clock = new FakeClock('2026-03-04T10:30:00.000Z');
  const T = () => Math.floor(clock.now().getTime() / 1000);
  const idpKey = generateKeyPairSync('ed25519');
  const vendorKey = generateKeyPairSync('ed25519');
  const rogueKey = generateKeyPairSync('ed25519');
  let jwksServer: Server;
  let stack: TestRegions;
  let us: string;
  let app: TestApp;
  let key: AgentKey;
  let agentId: string;

  async function jwt(privateKey: KeyObject, kid: string, claims: Record<string, unknown>, alg = 'EdDSA'): Promise<string> {
    return new SignJWT(claims).setProtectedHeader({ alg, kid, typ: 'JWT' }).sign(privateKey);
  }
  const credential = (overrides: Record<string, unknown> = {}, signer = idpKey.privateKey, kid = 'k1') =>
    jwt(signer, kid, {
      iss: 'https://idp.example',
      sub: agentId,
      aud: [us],
      iat: T(),
      exp: T() + 600,
      jti: randomUUID(),
      agent_type: 'assistant',
      agent_model: 'm-1',
      ...overrides,
    });
  const attestation = (overrides: Record<string, unknown> = {}, signer = vendorKey.privateKey, kid = 'v1') =>
    jwt(signer, kid, {
      iss: 'https://vendor.example',
      sub: agentId,
      aud: us,
      iat: T(),
      exp: T() + 600,
      jti: randomUUID(),
      agent_model: 'm-1',
      ...overrides,
    });
  const grant = (body: Record<string, unknown>) =>
    requestGrant(us, app, key, grantBody(agentId, key, { agent_metadata: { agent_type: 'assistant', agent_model: 'm-1' }, ...body }), {
      now: clock.now(),
    });

  beforeAll(async () => {
    const port = await freePort();
    const closedPort = await freePort();
    const idpJwk = { ...(await exportJWK(idpKey.publicKey)), kid: 'k1', alg: 'EdDSA' };
    const vendorJwks = [
      { ...(await exportJWK(vendorKey.publicKey)), kid: 'v1' },
      { ...(await exportJWK(vendorKey.publicKey)), kid: 'v2' },
    ];
    jwksServer = createServer((req, res) => {
      if (req.url === '/idp') return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [idpJwk] }));
      if (req.url === '/vendor')
        return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: vendorJwks }));
      if (req.url === '/bad') return res.writeHead(200, { 'content-type': 'application/json' }).end('{"keys": "nope"');
      return res.writeHead(500).end();
    });
    await new Promise<void>((resolve) => jwksServer.listen(port, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${port}`;
    const trustLists = JSON.stringify({
      agent_credential_issuers: [
        { iss: 'https://idp.example', jwks_uri: `${base}/idp`, kids: ['k1'] },
        { iss: 'https://idp-down.example', jwks_uri: `http://127.0.0.1:${closedPort}/jwks` },
        { iss: 'https://idp-500.example', jwks_uri: `${base}/500` },
        { iss: 'https://idp-bad.example', jwks_uri: `${base}/bad` },
        { iss: 'https://idp-eu.example', jwks_uri: `${base}/idp`, regions: ['eu'] },
      ],
      attestation_providers: [{ iss: 'https://vendor.example', jwks_uri: `${base}/vendor`, kids: ['v1', 'v2'], revoked_kids: ['v2'] }],
    });
    stack = await startRegions('oap_evidence', { clock, regions: ['us'], env: { OAP_TRUST_LISTS: trustLists } });
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

  describe('agent_credential (OIDC-A ID token)', () => {
    it('allows a trusted, valid credential agreeing with agent_metadata', async () => {
      expect((await grant({ agent_credential: await credential() })).status).toBe(201);
    });

    it('agent_credential_malformed: unparseable, missing claims, over 16 KB', async () => {
      await expectError(await grant({ agent_credential: 'a.b.c' }), 400, 'agent_credential_malformed');
      await expectError(await grant({ agent_credential: await credential({ jti: undefined }) }), 400, 'agent_credential_malformed', {
        missing_claims: ['jti'],
      });
      await expectError(await grant({ agent_credential: `${'a'.repeat(16 * 1024)}.b.c` }), 400, 'agent_credential_malformed');
    });

    it('untrusted_agent_credential_issuer: unknown iss, kid not allowed, issuer of another region', async () => {
      await expectError(
        await grant({ agent_credential: await credential({ iss: 'https://evil.example' }) }),
        400,
        'untrusted_agent_credential_issuer',
      );
      await expectError(
        await grant({ agent_credential: await credential({}, idpKey.privateKey, 'k9') }),
        400,
        'untrusted_agent_credential_issuer',
      );
      await expectError(
        await grant({ agent_credential: await credential({ iss: 'https://idp-eu.example' }) }),
        400,
        'untrusted_agent_credential_issuer',
      );
    });

    it('agent_credential_signature_invalid with detail.reason for each JWKS failure, and a wrong key', async () => {
      await expectError(
        await grant({ agent_credential: await credential({ iss: 'https://idp-down.example' }) }),
        400,
        'agent_credential_signature_invalid',
        { reason: 'jwks_unreachable' },
      );
      await expectError(
        await grant({ agent_credential: await credential({ iss: 'https://idp-500.example' }) }),
        400,
        'agent_credential_signature_invalid',
        { reason: 'jwks_fetch_failed' },
      );
      await expectError(
        await grant({ agent_credential: await credential({ iss: 'https://idp-bad.example' }) }),
        400,
        'agent_credential_signature_invalid',
        { reason: 'jwks_malformed' },
      );
      await expectError(
        await grant({ agent_credential: await credential({}, rogueKey.privateKey) }),
        400,
        'agent_credential_signature_invalid',
      );
    });

    it('agent_credential_expired outside iat ≤ now < exp (±60 s)', async () => {
      await expectError(
        await grant({ agent_credential: await credential({ iat: T() - 700, exp: T() - 61 }) }),
        400,
        'agent_credential_expired',
      );
      await expectError(
        await grant({ agent_credential: await credential({ iat: T() + 120, exp: T() + 600 }) }),
        400,
        'agent_credential_expired',
      );
      expect((await grant({ agent_credential: await credential({ iat: T() + 30 }) })).status).toBe(201);
    });

    it('agent_credential_audience_mismatch', async () => {
      await expectError(
        await grant({ agent_credential: await credential({ aud: 'https://elsewhere.example' }) }),
        400,
        'agent_credential_audience_mismatch',
      );
    });

    it('agent_credential_replayed (409) for the same (iss, jti)', async () => {
      const token = await credential();
      expect((await grant({ agent_credential: token })).status).toBe(201);
      await expectError(await grant({ agent_credential: token }), 409, 'agent_credential_replayed');
    });

    it('agent_metadata_mismatch lists disagreeing_fields; agent_type_outside_taxonomy from the token', async () => {
      await expectError(
        await grant({ agent_credential: await credential({ agent_model: 'm-2', agent_type: 'coding' }) }),
        400,
        'agent_metadata_mismatch',
        { disagreeing_fields: ['agent_type', 'agent_model'] },
      );
      await expectError(await grant({ agent_credential: await credential({ agent_type: 'robot' }) }), 400, 'agent_type_outside_taxonomy');
    });
  });

  describe('agent_attestation (vendor-jwt-v1)', () => {
    it('overlays the attestation on the receipt and serves it at /.well-known/oap-attestation', async () => {
      const token = await attestation();
      const res = await grant({ agent_attestation: { format: FORMAT, token } });
      expect(res.status).toBe(201);
      const receipt = res.body.grant_attestation as string;
      expect(receipt).not.toContain(token.split('.')[1]!);
      expect(Buffer.byteLength(receipt)).toBeLessThan(2048);
      const claims = JSON.parse(Buffer.from(receipt.split('.')[1]!, 'base64url').toString()) as Record<string, Record<string, unknown>>;
      const digest = createHash('sha256').update(token).digest('hex');
      expect(claims.agent_attestation).toMatchObject({ format: FORMAT, iss: 'https://vendor.example', claims_digest: digest });
      const jti = claims.jti as unknown as string;
      const fetched = await http('GET', `${us}/.well-known/oap-attestation?jti=${jti}&digest=${digest}`);
      expect(fetched.status).toBe(200);
      expect(fetched.body).toEqual({ format: FORMAT, token });
      expect(fetched.headers.get('cache-control')).toBe('private, max-age=300');
      expect((await http('GET', `${us}/.well-known/oap-attestation?jti=${jti}&digest=${'0'.repeat(64)}`)).status).toBe(409);
      const unknown = await http('GET', `${us}/.well-known/oap-attestation?jti=${randomUUID()}&digest=${digest}`);
      const plain = await grant({});
      const plainJti = (
        JSON.parse(Buffer.from((plain.body.grant_attestation as string).split('.')[1]!, 'base64url').toString()) as { jti: string }
      ).jti;
      const noOverlay = await http('GET', `${us}/.well-known/oap-attestation?jti=${plainJti}&digest=${digest}`);
      expect([unknown.status, noOverlay.status]).toEqual([404, 404]);
      expect(noOverlay.text).toBe(unknown.text);
      expect((await http('GET', `${us}/.well-known/oap-attestation?jti=${jti}`)).status).toBe(400);
    });

    it('omits the overlay once the attestation has expired (within the skew)', async () => {
      const res = await grant({ agent_attestation: { format: FORMAT, token: await attestation({ iat: T() - 600, exp: T() - 30 }) } });
      expect(res.status).toBe(201);
      const claims = JSON.parse(Buffer.from((res.body.grant_attestation as string).split('.')[1]!, 'base64url').toString()) as Record<
        string,
        unknown
      >;
      expect(claims).not.toHaveProperty('agent_attestation');
    });

    it('every attestation reason code with its status', async () => {
      await expectError(
        await grant({ agent_attestation: { format: FORMAT, token: await attestation(), extra: 1 } }),
        400,
        'agent_attestation_malformed',
      );
      await expectError(
        await grant({ agent_attestation: { format: 'urn:other', token: await attestation() } }),
        400,
        'agent_attestation_malformed',
      );
      await expectError(
        await grant({ agent_attestation: { format: FORMAT, token: await attestation({ aud: undefined }) } }),
        400,
        'agent_attestation_malformed',
      );
      await expectError(
        await grant({ agent_attestation: { format: FORMAT, token: 'x'.repeat(16 * 1024 + 1) } }),
        400,
        'agent_attestation_malformed',
      );
      await expectError(
        await grant({ agent_attestation: { format: FORMAT, token: await attestation({ iss: 'https://evil.example' }) } }),
        400,
        'agent_attestation_untrusted_provider',
      );
      await expectError(
        await grant({ agent_attestation: { format: FORMAT, token: await attestation({}, vendorKey.privateKey, 'v7') } }),
        400,
        'agent_attestation_untrusted_provider',
      );
      await expectError(
        await grant({ agent_attestation: { format: FORMAT, token: await attestation({}, vendorKey.privateKey, 'v2') } }),
        400,
        'agent_attestation_kid_revoked',
      );
      await expectError(
        await grant({ agent_attestation: { format: FORMAT, token: await attestation({}, rogueKey.privateKey) } }),
        400,
        'agent_attestation_signature_invalid',
      );
      const hs = await new SignJWT({ iss: 'https://vendor.example', aud: us, iat: T(), exp: T() + 60, jti: randomUUID() })
        .setProtectedHeader({ alg: 'HS256', kid: 'v1' })
        .sign(Buffer.alloc(32, 1));
      await expectError(await grant({ agent_attestation: { format: FORMAT, token: hs } }), 400, 'agent_attestation_signature_invalid', {
        reason: 'unsupported_alg',
      });
      await expectError(
        await grant({ agent_attestation: { format: FORMAT, token: await attestation({ iat: T() - 900, exp: T() - 120 }) } }),
        400,
        'agent_attestation_expired',
      );
      await expectError(
        await grant({ agent_attestation: { format: FORMAT, token: await attestation({ aud: 'https://elsewhere.example' }) } }),
        400,
        'agent_attestation_audience_mismatch',
      );
      await expectError(
        await grant({ agent_attestation: { format: FORMAT, token: await attestation({ sub: 'agent_us_bbbbbbbbbbbbbbbbbbbb' }) } }),
        400,
        'agent_attestation_identity_mismatch',
        { disagreeing_fields: ['sub'] },
      );
      const token = await attestation();
      expect((await grant({ agent_attestation: { format: FORMAT, token } })).status).toBe(201);
      await expectError(await grant({ agent_attestation: { format: FORMAT, token } }), 409, 'agent_attestation_replayed');
    });

    it('POST /api/v1/grants/:grant_id/attestation refreshes (DPoP-bound, UUIDv4 Idempotency-Key)', async () => {
      const created = await grant({ agent_attestation: { format: FORMAT, token: await attestation() } });
      const grantId = created.body.grant_id as string;
      const agentToken = created.body.agent_token as string;
      const url = `${us}/api/v1/grants/${grantId}/attestation`;
      const call = async (body: unknown, idem: string, k = key) =>
        http('POST', url, {
          headers: {
            authorization: `DPoP ${agentToken}`,
            dpop: await dpopProof(k, 'POST', url, { now: clock.now(), accessToken: agentToken }),
            'idempotency-key': idem,
          },
          json: body,
        });
      const idem = randomUUID();
      const fresh = { agent_attestation: { format: FORMAT, token: await attestation() } };
      const refreshed = await call(fresh, idem);
      expect(refreshed.status).toBe(200);
      expect(refreshed.body).toMatchObject({ grant_id: grantId, agent_attestation: { format: FORMAT } });
      expect(refreshed.body.grant_attestation).not.toBe(created.body.grant_attestation);
      expect((await call(fresh, idem)).body).toEqual(refreshed.body);
      await expectError(await call(fresh, 'not-a-uuid'), 400, 'idempotency_key_invalid');
      await expectError(
        await call({ agent_attestation: { format: FORMAT, token: await attestation({ agent_model: 'm-9' }) } }, randomUUID()),
        400,
        'agent_attestation_identity_mismatch',
        { disagreeing_fields: ['agent_model'] },
      );
      await expectError(await call(fresh, randomUUID(), await newAgentKey()), 401, 'agent_token_grant_mismatch');
      const foreign = await http('POST', `${us}/api/v1/grants/ath_eu_aaaaaaaaaaaaaaaaaaaaaaaa/attestation`, {
        headers: { 'idempotency-key': randomUUID() },
        json: fresh,
      });
      expect(foreign.status).toBe(421);
    });

    it('answers 410 past the 90-day retention', async () => {
      const token = await attestation();
      const res = await grant({ agent_attestation: { format: FORMAT, token } });
      const jti = (
        JSON.parse(Buffer.from((res.body.grant_attestation as string).split('.')[1]!, 'base64url').toString()) as { jti: string }
      ).jti;
      clock.advance(91 * 24 * 3600_000);
      const gone = await http(
        'GET',
        `${us}/.well-known/oap-attestation?jti=${jti}&digest=${createHash('sha256').update(token).digest('hex')}`,
      );
      expect(gone.status).toBe(410);
      expect(gone.body.reason_code).toBe('attestation_gone');
    });
  });
});
