import { randomUUID } from 'node:crypto';
import { generateKeyPair, generateProof, type KeyPair } from 'dpop';
import { calculateJwkThumbprint, exportJWK, decodeProtectedHeader } from 'jose';
import { http } from '@svc/testing';
import { FakeClock, startRegions, type TestRegions } from '../support/regions';
import { bearer, createAgent, createApp, createAuthority, type TestApp } from './support';

/**
 * An agent using panva's `dpop` client (RFC 9449), which signs Ed25519 proofs with the
 * fully-specified JOSE algorithm `Ed25519` (RFC 9864) rather than `EdDSA`. The `dpop` client takes
 * `iat` from the real clock, so the region runs on a clock set to now.
 */
describe('DPoP proofs of a standard client signing with alg Ed25519 (RFC 9864)', () => {
  const clock = new FakeClock(new Date().toISOString());
  let stack: TestRegions;
  let us: string;
  let app: TestApp;
  let agentId: string;
  let keyPair: KeyPair;
  let jkt: string;

  beforeAll(async () => {
    stack = await startRegions('oap_dpop_client', { clock, regions: ['us'] });
    us = stack.url.us;
    app = await createApp(stack);
    agentId = await createAgent(us, app, { manifest: true });
    await createAuthority(us, app, agentId);
    keyPair = await generateKeyPair('Ed25519');
    jkt = await calculateJwkThumbprint(await exportJWK(keyPair.publicKey), 'sha256');
  });
  afterAll(() => stack?.close());

  const grantRequest = (proof: string | undefined) =>
    http('POST', `${us}/api/v1/grants`, {
      headers: { ...bearer(app.token), ...(proof === undefined ? {} : { dpop: proof }), 'idempotency-key': randomUUID() },
      json: {
        agent_id: agentId,
        agent_dpop_jkt: jkt,
        scope: ['payments:write'],
        actions: ['pay'],
        valid_until: new Date(clock.now().getTime() + 3600_000).toISOString(),
        value_bounds: { amount_per_action: '25.50', currency: 'EUR' },
        human_register: { displayed_to_principal: true },
      },
    });

  it('grants with an Ed25519 proof, and the agent token works with the next Ed25519 proof', async () => {
    clock.set(new Date().toISOString());
    const proof = await generateProof(keyPair, `${us}/api/v1/grants`, 'POST');
    expect(decodeProtectedHeader(proof).alg).toBe('Ed25519');
    const granted = await grantRequest(proof);
    expect(granted.status).toBe(201);
    expect(granted.body).toMatchObject({ grant_id: expect.stringMatching(/^ath_us_/), agent_token: expect.stringMatching(/^ra_agent_/) });

    const token = granted.body.agent_token as string;
    const url = `${us}/api/v1/grants/${granted.body.grant_id as string}`;
    const read = await http('GET', url, {
      headers: { authorization: `DPoP ${token}`, dpop: await generateProof(keyPair, url, 'GET', undefined, token) },
    });
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ id: granted.body.grant_id, status: 'active' });
  });

  it('offers Ed25519 in the DPoP challenge of a request without a proof', async () => {
    clock.set(new Date().toISOString());
    const res = await grantRequest(undefined);
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^DPoP algs="[^"]*\bEd25519\b[^"]*\bEdDSA\b/);
  });
});
