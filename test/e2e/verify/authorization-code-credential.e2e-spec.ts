import { createPrivateKey, createPublicKey, verify as verifySignature } from 'node:crypto';
import { ES256, digest, generateSalt } from '@sd-jwt/crypto-nodejs';
import { getListFromStatusListJWT } from '@sd-jwt/jwt-status-list';
import { SDJwtVcInstance } from '@sd-jwt/sd-jwt-vc';
import { http, waitFor } from '@svc/testing';
import { SignJWT, decodeProtectedHeader, type JWK } from 'jose';
import * as oidc from 'openid-client';
import { CookieJar } from '../oauth/support';
import { REDIRECT, grantAuthority, personAccessToken, startAgentWorld, type AgentWorld } from '../agents/support';

type Json = Record<string, unknown>;
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const VERIFIED_PERSON = { type: 'openid_credential', credential_configuration_id: 'verified_person' };

/**
 * Issue 22, item 2: the authorization code flow of OpenID4VCI through the region's OpenID provider.
 * A wallet (openid-client as the real OAuth client: PAR, PKCE S256) asks for a credential with
 * RFC 9396 `authorization_details` of type `openid_credential`; the signed-in person sees it on the
 * consent page and allows it; the access token carries the details and the credential endpoint
 * (receipts) issues for that person only. Authority records are credentials too, revoked in the
 * status list when the authority is revoked.
 */
describe('OpenID4VCI authorization code flow through our OpenID provider', () => {
  let world: AgentWorld;
  let holder: { publicJwk: JWK; privateJwk: JWK };
  let metadata: Json;

  /** The wallet: PAR with authorization_details, the person allows on the consent page, code for tokens. */
  async function walletTokens(details: Json[], consentText?: (html: string) => void): Promise<oidc.TokenEndpointResponse> {
    const verifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const url = await oidc.buildAuthorizationUrlWithPAR(world.client.config, {
      redirect_uri: REDIRECT,
      scope: 'openid',
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
      authorization_details: JSON.stringify(details),
    });
    const jar = new CookieJar();
    jar.add(world.personCookie);
    let next = url.href;
    for (let hop = 0; hop < 12 && !next.startsWith(REDIRECT); hop++) {
      const res = await fetch(new URL(next, world.url), { redirect: 'manual', headers: { cookie: jar.header(), 'accept-language': 'en' } });
      jar.store(res);
      const location = res.headers.get('location');
      if (location) {
        next = location;
        continue;
      }
      const html = await res.text();
      consentText?.(html);
      const action = /<form method="post" action="([^"]+\/confirm)"/.exec(html)?.[1];
      if (!action) throw new Error(`unexpected ${res.status} during sign-in`);
      const post = await fetch(new URL(action, world.url), {
        method: 'POST',
        redirect: 'manual',
        headers: { cookie: jar.header(), 'content-type': 'application/x-www-form-urlencoded' },
        body: '',
      });
      jar.store(post);
      next = post.headers.get('location') ?? '';
    }
    return oidc.authorizationCodeGrant(world.client.config, new URL(next), { pkceCodeVerifier: verifier, expectedState: state });
  }

  /** A key proof for a fresh c_nonce of the issuer's nonce endpoint. */
  async function proof(): Promise<string> {
    const nonce = await http('POST', metadata.nonce_endpoint as string);
    return new SignJWT({ nonce: nonce.body.c_nonce })
      .setProtectedHeader({ alg: 'ES256', typ: 'openid4vci-proof+jwt', jwk: holder.publicJwk })
      .setIssuedAt()
      .setAudience(world.url)
      .sign(createPrivateKey({ key: holder.privateJwk as never, format: 'jwk' }));
  }

  const requestCredential = async (token: string, body: Json) =>
    http('POST', metadata.credential_endpoint as string, { headers: bearer(token), json: { ...body, proofs: { jwt: [await proof()] } } });

  /** `@sd-jwt/sd-jwt-vc` verifies with the issuer key of the region's did:web document. */
  async function verifyIndependently(credential: string): Promise<Json> {
    const document = (
      await http<{ id: string; verificationMethod: Array<{ id: string; publicKeyJwk: JWK }> }>('GET', `${world.url}/.well-known/did.json`)
    ).body;
    const check = (kid: string) => (data: string, signature: string) => {
      const method = document.verificationMethod.find((entry) => entry.id === kid);
      if (!method) return false;
      return verifySignature(
        null,
        Buffer.from(data),
        createPublicKey({ key: method.publicKeyJwk as never, format: 'jwk' }),
        Buffer.from(signature, 'base64url'),
      );
    };
    const kidOf = (data: string) => decodeProtectedHeader(`${data.split('.').slice(0, 2).join('.')}.x`).kid as string;
    const instance = new SDJwtVcInstance({
      hasher: digest,
      hashAlg: 'sha-256',
      saltGenerator: generateSalt,
      verifier: async (data: string, signature: string) => check(kidOf(data))(data, signature),
      // The status list token names the region key by its kid; the DID document by its DID URL.
      statusListFetcher: async (uri: string) => (await http('GET', uri)).text,
      statusVerifier: async (data: string, signature: string) => check(`${document.id}#${kidOf(data)}`)(data, signature),
    });
    return (await instance.verify(credential)).payload as Json;
  }

  beforeAll(async () => {
    world = await startAgentWorld('verify_authcode');
    const keys = await ES256.generateKeyPair();
    holder = { publicJwk: keys.publicKey as JWK, privateJwk: keys.privateKey as JWK };
    metadata = (await http<Json>('GET', `${world.url}/.well-known/openid-credential-issuer`)).body;
  });
  afterAll(() => world?.close());

  it('lists our OpenID provider beside the pre-authorized code server, and the provider takes openid_credential details', async () => {
    expect(metadata.authorization_servers).toEqual([`${world.url}/oid4vci`, world.url]);
    const discovery = await http<Json>('GET', `${world.url}/.well-known/openid-configuration`);
    expect(discovery.body.issuer).toBe(world.url);
    expect(discovery.body.authorization_details_types_supported).toEqual(['openid_credential']);
    const offer = await http('POST', `${world.url}/api/v1/credentials/offers`, {
      headers: bearer(world.app.token),
      json: { credential_type: 'registered_agent', agent_id: world.agentId },
    });
    // The agent registration reaches receipts over the bus.
    if (offer.status === 404)
      await waitFor(
        async () =>
          (
            await http('POST', `${world.url}/api/v1/credentials/offers`, {
              headers: bearer(world.app.token),
              json: { credential_type: 'registered_agent', agent_id: world.agentId },
            })
          ).status === 201,
      );
    else expect(offer.status).toBe(201);
    // With two authorization servers, the pre-authorized grant names its own (OpenID4VCI §4.1.1).
    const again = await http('POST', `${world.url}/api/v1/credentials/offers`, {
      headers: bearer(world.app.token),
      json: { credential_type: 'registered_agent', agent_id: world.agentId },
    });
    expect(
      (again.body.credential_offer as { grants: Record<string, Json> }).grants['urn:ietf:params:oauth:grant-type:pre-authorized_code'],
    ).toMatchObject({ authorization_server: `${world.url}/oid4vci` });
  });

  it('a wallet gets a "verified person" credential for the signed-in person only', async () => {
    world.clock.set(new Date().toISOString());
    let consentPage = '';
    const tokens = await walletTokens([VERIFIED_PERSON], (html) => (consentPage = html));
    expect(consentPage).toContain('Put a “verified person” credential in your wallet');
    expect(tokens.authorization_details).toEqual([VERIFIED_PERSON]);

    const issued = await requestCredential(tokens.access_token, { credential_configuration_id: 'verified_person' });
    expect(issued.status).toBe(200);
    const credential = (issued.body.credentials as Array<{ credential: string }>)[0]!.credential;
    const payload = await verifyIndependently(credential);
    expect(payload).toMatchObject({
      vct: 'urn:svc:vct:verified_person:1',
      person_id: world.personId,
      cnf: { jwk: { kty: 'EC', x: holder.publicJwk.x, y: holder.publicJwk.y } },
      status: { status_list: { idx: expect.any(Number), uri: expect.stringContaining('/.well-known/credential-status/us-') } },
    });
    // The credential is the application's (its client's), listed and revocable by it.
    const listed = await http('GET', `${world.url}/api/v1/credentials/${issued.body.credential_id as string}`, {
      headers: bearer(world.app.token),
    });
    expect(listed.body).toMatchObject({ credential_type: 'verified_person', subject_ref: world.personId, status: 'active' });

    // Without naming the configuration the token's single detail is taken; another configuration is refused.
    expect((await requestCredential(tokens.access_token, {})).status).toBe(200);
    const other = await requestCredential(tokens.access_token, { credential_configuration_id: 'consent_receipt' });
    expect(other.status).toBe(400);
    expect(other.body.reason_code).toBe('unknown_credential_configuration');
  });

  it('refuses a person token granted without a credential detail, an unknown token, and a detail the provider does not issue', async () => {
    world.clock.set(new Date().toISOString());
    const plain = await personAccessToken(world);
    const refused = await requestCredential(plain, { credential_configuration_id: 'verified_person' });
    expect(refused.status).toBe(403);
    expect(refused.body.reason_code).toBe('insufficient_scope');
    const unknown = await requestCredential('x'.repeat(43), { credential_configuration_id: 'verified_person' });
    expect(unknown.status).toBe(401);
    expect(unknown.body.reason_code).toBe('invalid_token');

    // The provider validates each detail at the pushed authorization request.
    for (const detail of [
      { type: 'openid_credential', credential_configuration_id: 'consent_receipt' },
      { type: 'openid_credential', credential_configuration_id: 'authority_record' },
      { type: 'openid_credential', credential_configuration_id: 'verified_person', locations: ['https://elsewhere.example'] },
      { type: 'payment_initiation', credential_configuration_id: 'verified_person' },
    ]) {
      const error = await walletTokens([detail]).then(
        () => undefined,
        (e: unknown) => e as { error?: string },
      );
      expect(error?.error).toBe('invalid_authorization_details');
    }
  });

  it('issues the record of an authority the person granted, and the status list revokes it with the authority', async () => {
    world.clock.set(new Date().toISOString());
    const authorityId = await grantAuthority(world, {
      scope_bounds: { allowed: ['payments:*'] },
      action_bounds: { allowed: ['pay'] },
      time_bounds: { unrestricted: true },
      reputation_bounds: { unrestricted: true },
      oap_sequence_bounds: { unrestricted: true },
    });
    // The authority reaches receipts over the bus; the application can offer it by then.
    await waitFor(
      async () =>
        (
          await http('POST', `${world.url}/api/v1/credentials/offers`, {
            headers: bearer(world.app.token),
            json: { credential_type: 'authority_record', authority_id: authorityId },
          })
        ).status === 201,
    );

    const detail = { type: 'openid_credential', credential_configuration_id: 'authority_record', authority_id: authorityId };
    let consentPage = '';
    const tokens = await walletTokens([detail], (html) => (consentPage = html));
    expect(consentPage).toContain('Put the record of an authority you granted in your wallet');
    const issued = await requestCredential(tokens.access_token, { credential_configuration_id: 'authority_record' });
    expect(issued.status).toBe(200);
    const credential = (issued.body.credentials as Array<{ credential: string }>)[0]!.credential;
    const payload = await verifyIndependently(credential);
    expect(payload).toMatchObject({
      vct: 'urn:svc:vct:authority_record:1',
      authority_id: authorityId,
      agent_id: world.agentId,
      controller: { id: world.app.id },
      bounds: { scope_bounds: { allowed: ['payments:*'] }, action_bounds: { allowed: ['pay'] } },
    });
    const reference = (payload.status as { status_list: { idx: number; uri: string } }).status_list;
    expect(getListFromStatusListJWT((await http('GET', reference.uri)).text).getStatus(reference.idx)).toBe(0);

    // The person offers it to themselves with their own token too (pre-authorized code).
    const personToken = await personAccessToken(world);
    const own = await http('POST', `${world.url}/api/v1/credentials/offers`, {
      headers: bearer(personToken),
      json: { credential_type: 'authority_record', authority_id: authorityId },
    });
    expect(own.status).toBe(201);

    const revoked = await http('POST', `${world.url}/api/v1/authorities/${authorityId}/revoke`, {
      headers: bearer(world.app.token),
      json: { reason: 'no longer needed' },
    });
    expect(revoked.status).toBe(201);
    const started = Date.now();
    await waitFor(async () => getListFromStatusListJWT((await http('GET', reference.uri)).text).getStatus(reference.idx) === 1, 30_000);
    expect(Date.now() - started).toBeLessThan(30_000);
    const listed = await http('GET', `${world.url}/api/v1/credentials/${issued.body.credential_id as string}`, {
      headers: bearer(world.app.token),
    });
    expect(listed.body).toMatchObject({ credential_type: 'authority_record', status: 'revoked', revocation_reason: 'authority_revoked' });
    // A revoked authority is offered no more, and its token no longer buys it.
    const after = await http('POST', `${world.url}/api/v1/credentials/offers`, {
      headers: bearer(world.app.token),
      json: { credential_type: 'authority_record', authority_id: authorityId },
    });
    expect(after.status).toBe(422);
    expect((await requestCredential(tokens.access_token, { credential_configuration_id: 'authority_record' })).status).toBe(422);
  });
});
