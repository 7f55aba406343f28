import { createPrivateKey, createPublicKey, verify as verifySignature } from 'node:crypto';
import { ES256, digest, generateSalt } from '@sd-jwt/crypto-nodejs';
import { getListFromStatusListJWT } from '@sd-jwt/jwt-status-list';
import { SDJwtVcInstance } from '@sd-jwt/sd-jwt-vc';
import { CreateApplication, CreateApplicationCommand } from '@svc/decision-gateway';
import { http, waitFor } from '@svc/testing';
import { SignJWT, decodeProtectedHeader, type JWK } from 'jose';
import { FakeClock, startRegions, type TestRegions } from '../support/regions';

type Json = Record<string, unknown>;
const auth = (token: string) => ({ authorization: `Bearer ${token}` });
const seconds = (date: Date) => Math.floor(date.getTime() / 1000);
/** The lawful basis eu names for the presented data that crosses from US (a credential issued in us). */
const BASIS = { lawful_basis: 'standard_contractual_clauses' };

/**
 * Issue 22, Done when (first test), with issue 18 item 6: a person receives their consent receipt
 * as an SD-JWT VC through OpenID4VCI (pre-authorized code), presents it with selective disclosure
 * (made with `@sd-jwt/sd-jwt-vc`, an independent implementation) to an application of another
 * region, which verifies it against the issuing region's published did:web key; after the person
 * withdraws consent the status list says revoked and the same presentation fails at `status`.
 */
describe('a consent receipt as an SD-JWT VC, issued in us and presented in eu', () => {
  const clock = new FakeClock('2026-03-04T10:30:00.000Z');
  let stack: TestRegions;
  let us: string;
  let eu: string;
  let issuerApp: { id: string; token: string };
  let verifierApp: { id: string; token: string };
  let recordId: string;
  let holder: { publicJwk: JWK; privateJwk: JWK };

  /** The issuer key of a credential, resolved the way any verifier does: its did:web document. */
  async function issuerKeyOf(kid: string) {
    const [did] = kid.split('#');
    const host = decodeURIComponent(did!.replace(/^did:web:/, ''));
    const document = await http<{ id: string; verificationMethod: Array<{ id: string; publicKeyJwk: JWK }> }>(
      'GET',
      `http://${host}/.well-known/did.json`,
    );
    const method = document.body.verificationMethod.find((entry) => entry.id === kid);
    if (!method) throw new Error(`no verification method ${kid}`);
    return createPublicKey({ key: method.publicKeyJwk as never, format: 'jwk' });
  }

  /** `@sd-jwt/sd-jwt-vc` as the wallet and as an independent verifier. */
  async function library(): Promise<SDJwtVcInstance> {
    return new SDJwtVcInstance({
      hasher: digest,
      hashAlg: 'sha-256',
      saltGenerator: generateSalt,
      kbSigner: await ES256.getSigner(holder.privateJwk),
      kbSignAlg: 'ES256',
      kbVerifier: await ES256.getVerifier(holder.publicJwk),
      verifier: async (data: string, signature: string) => {
        const kid = decodeProtectedHeader(data.split('.').slice(0, 2).join('.') + '.x').kid as string;
        return verifySignature(null, Buffer.from(data), await issuerKeyOf(kid), Buffer.from(signature, 'base64url'));
      },
      statusListFetcher: async (uri: string) => (await http('GET', uri)).text,
      statusVerifier: async (data: string, signature: string) => {
        const kid = decodeProtectedHeader(data.split('.').slice(0, 2).join('.') + '.x').kid as string;
        const did = (await http<{ id: string }>('GET', `${us}/.well-known/did.json`)).body.id;
        return verifySignature(null, Buffer.from(data), await issuerKeyOf(`${did}#${kid}`), Buffer.from(signature, 'base64url'));
      },
    });
  }

  async function present(credential: string, nonce: string, aud: string): Promise<string> {
    return (await library()).present(
      credential,
      { controller: true, purposes: true },
      { kb: { payload: { iat: seconds(clock.now()), aud, nonce } } },
    );
  }

  beforeAll(async () => {
    stack = await startRegions('verify_vc', { clock, regions: ['us', 'eu'] });
    us = stack.url.us;
    eu = stack.url.eu;
    const issuer = await stack.process.us.app
      .get(CreateApplication)
      .execute(CreateApplicationCommand.create({ name: 'Acme Ltd', environment: 'development' }));
    issuerApp = { id: issuer.application.id, token: issuer.apiToken };
    const verifier = await stack.process.eu.app
      .get(CreateApplication)
      .execute(CreateApplicationCommand.create({ name: 'Verifier GmbH', environment: 'development' }));
    verifierApp = { id: verifier.application.id, token: verifier.apiToken };
    const flow = await http('POST', `${us}/api/v1/flows`, {
      headers: auth(issuerApp.token),
      json: {
        name: 'Signup',
        locale: 'en-GB',
        presentation: { title: 'Stay in touch', description: 'What we do with your email address' },
        policy_url: 'https://acme.example/privacy',
        purposes: [
          { key: 'newsletter', label: 'Newsletter', description: 'A monthly letter' },
          { key: 'research', label: 'Product research', description: 'Occasional surveys' },
        ],
        consent_duration: 'P1Y',
      },
    });
    expect(flow.status).toBe(201);
    expect(
      (await http('POST', `${us}/api/v1/flows/${flow.body.id as string}/activate`, { headers: auth(issuerApp.token), json: {} })).status,
    ).toBeLessThan(300);
    const record = await http('POST', `${us}/api/v1/consent_records`, {
      headers: auth(issuerApp.token),
      json: {
        flow_id: flow.body.id,
        subject: { email: 'ada@example.com' },
        decisions: {
          newsletter: { decision: 'granted', default_checked: false, mandatory: false },
          research: { decision: 'granted', default_checked: false, mandatory: false },
        },
        captured_at: new Date(clock.now().getTime() - 60_000).toISOString(),
        idempotency_key: 'signup-1',
      },
    });
    expect(record.status).toBe(201);
    recordId = record.body.id as string;
    await waitFor(
      async () => (await http('GET', `${us}/api/v1/consent_receipts/${recordId}`, { headers: auth(issuerApp.token) })).status === 200,
    );
    const keys = await ES256.generateKeyPair();
    holder = { publicJwk: keys.publicKey as JWK, privateJwk: keys.privateKey as JWK };
  });
  afterAll(() => stack?.close());

  let credential: string;
  let credentialId: string;

  it('issues the consent receipt through OpenID4VCI: offer, issuer and server metadata, token, key proof, credential', async () => {
    const offer = await http('POST', `${us}/api/v1/credentials/offers`, {
      headers: auth(issuerApp.token),
      json: { credential_type: 'consent_receipt', record_id: recordId },
    });
    expect(offer.status).toBe(201);
    const link = new URL(offer.body.credential_offer_uri as string);
    expect(link.protocol).toBe('openid-credential-offer:');
    const credentialOffer = JSON.parse(link.searchParams.get('credential_offer')!) as {
      credential_issuer: string;
      credential_configuration_ids: string[];
      grants: Record<string, Json>;
    };
    expect(credentialOffer).toEqual(offer.body.credential_offer);
    expect(credentialOffer.credential_issuer).toBe(us);

    // The wallet discovers everything from the issuer identifier.
    const metadata = await http('GET', `${credentialOffer.credential_issuer}/.well-known/openid-credential-issuer`);
    expect(metadata.status).toBe(200);
    expect((metadata.body.credential_configurations_supported as Record<string, Json>).consent_receipt).toMatchObject({
      format: 'dc+sd-jwt',
      cryptographic_binding_methods_supported: ['jwk'],
    });
    const asUrl = new URL((metadata.body.authorization_servers as string[])[0]!);
    const asMetadata = await http('GET', `${asUrl.origin}/.well-known/oauth-authorization-server${asUrl.pathname}`);
    expect(asMetadata.status).toBe(200);
    expect(asMetadata.body.issuer).toBe(asUrl.toString());

    const code = credentialOffer.grants['urn:ietf:params:oauth:grant-type:pre-authorized_code']!['pre-authorized_code'] as string;
    const form = new URLSearchParams({
      grant_type: 'urn:ietf:params:oauth:grant-type:pre-authorized_code',
      'pre-authorized_code': code,
    }).toString();
    const token = await http('POST', asMetadata.body.token_endpoint as string, {
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      raw: form,
    });
    expect(token.status).toBe(200);
    expect(token.body).toMatchObject({ token_type: 'Bearer', c_nonce: expect.any(String) });
    // The code is single-use.
    expect(
      (
        await http('POST', asMetadata.body.token_endpoint as string, {
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          raw: form,
        })
      ).status,
    ).toBe(400);

    const proof = await new SignJWT({ nonce: token.body.c_nonce })
      .setProtectedHeader({ alg: 'ES256', typ: 'openid4vci-proof+jwt', jwk: holder.publicJwk })
      .setIssuedAt(seconds(clock.now()))
      .setAudience(credentialOffer.credential_issuer)
      .sign(createPrivateKey({ key: holder.privateJwk as never, format: 'jwk' }));
    const issued = await http('POST', metadata.body.credential_endpoint as string, {
      headers: auth(token.body.access_token as string),
      json: { credential_configuration_id: 'consent_receipt', proofs: { jwt: [proof] } },
    });
    expect(issued.status).toBe(200);
    credential = (issued.body.credentials as Array<{ credential: string }>)[0]!.credential;
    credentialId = issued.body.credential_id as string;
    expect(credentialId).toMatch(/^vcr_us_[a-z2-7]{24}$/);

    // The independent library verifies the issuer signature (key from did.json) and the status list.
    const verified = await (await library()).verify(credential, { currentDate: seconds(clock.now()) });
    expect(verified.payload).toMatchObject({
      vct: 'urn:svc:vct:consent_receipt:1',
      iss: expect.stringMatching(/^did:web:127\.0\.0\.1%3A\d+$/),
      cnf: { jwk: { kty: 'EC', crv: 'P-256', x: holder.publicJwk.x, y: holder.publicJwk.y } },
      record_id: recordId,
      purposes: [
        { purpose_id: 'newsletter', label: 'Newsletter' },
        { purpose_id: 'research', label: 'Product research' },
      ],
    });
    expect(decodeProtectedHeader(credential.split('~')[0]!)).toMatchObject({ typ: 'dc+sd-jwt', alg: 'EdDSA' });
    const listed = await http('GET', `${us}/api/v1/credentials/${credentialId}`, { headers: auth(issuerApp.token) });
    expect(listed.body).toMatchObject({ credential_type: 'consent_receipt', status: 'active', subject_ref: recordId });
  });

  it('another application in eu verifies a selective-disclosure presentation against the us published key, without asking us about it', async () => {
    const nonce = 'eu-nonce-1';
    const presentation = await present(credential, nonce, verifierApp.id);
    // The presented data crosses from US to DE: refused without a lawful basis, before any check runs.
    const refused = await http('POST', `${eu}/api/v1/presentations`, { headers: auth(verifierApp.token), json: { presentation, nonce } });
    expect([refused.status, refused.body.reason_code, (refused.body.detail as Json).field]).toEqual([
      422,
      'lawful_basis_required',
      'lawful_basis',
    ]);
    const register = () =>
      http<{ data: Json[] }>('GET', `${eu}/api/v1/transfer_register?transfer_case=presentation`, { headers: auth(verifierApp.token) });
    expect((await register()).body.data).toEqual([]);
    const res = await http('POST', `${eu}/api/v1/presentations`, {
      headers: auth(verifierApp.token),
      json: { presentation, nonce, ...BASIS },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      valid: true,
      format: 'dc+sd-jwt',
      issuer_region: 'us',
      issuer_country: 'US',
      vct: 'urn:svc:vct:consent_receipt:1',
      transfer_id: expect.stringMatching(/^xfr_/),
    });
    // Written to eu's register before the verification, as an inbound crossing with its audit entry.
    expect((await register()).body.data).toEqual([
      expect.objectContaining({
        id: res.body.transfer_id,
        transfer_case: 'presentation',
        from_country: 'US',
        to_country: 'DE',
        lawful_basis: 'standard_contractual_clauses',
        data_categories: ['identifiers', 'presented_credentials'],
        audit_entry_id: expect.stringMatching(/^audit_rec_/),
      }),
    ]);
    expect((res.body.checks as Json[]).map((check) => [check.check, check.result])).toEqual([
      ['format', 'passed'],
      ['issuer_trusted', 'passed'],
      ['signature', 'passed'],
      ['disclosures', 'passed'],
      ['validity_period', 'passed'],
      ['key_binding', 'passed'],
      ['status', 'passed'],
    ]);
    // Only what the holder chose to disclose.
    const disclosed = res.body.disclosed_claims as Json;
    expect(Object.keys(disclosed).sort()).toEqual(['controller', 'purposes']);
    expect(disclosed.controller).toMatchObject({ id: issuerApp.id, name: 'Acme Ltd' });

    const replayed = await http('POST', `${eu}/api/v1/presentations`, {
      headers: auth(verifierApp.token),
      json: { presentation, nonce: 'another-nonce', ...BASIS },
    });
    expect(replayed.body.valid).toBe(false);
    expect(replayed.body.checks).toContainEqual({ check: 'key_binding', result: 'failed', reason: 'nonce_mismatch' });
    const elsewhere = await http('POST', `${eu}/api/v1/presentations`, {
      headers: auth(verifierApp.token),
      json: { presentation, nonce, audience: 'https://other.example', ...BASIS },
    });
    expect(elsewhere.body.checks).toContainEqual({ check: 'key_binding', result: 'failed', reason: 'audience_mismatch' });
  });

  it('after the person withdraws consent the status list says revoked and the presentation fails at status', async () => {
    const withdrawal = await http('POST', `${us}/api/v1/consent_records/${recordId}/withdrawals`, {
      headers: auth(issuerApp.token),
      json: { channel: 'receipt_link' },
    });
    expect(withdrawal.status).toBeLessThan(300);
    const [, payload] = credential.split('~')[0]!.split('.');
    const reference = (
      JSON.parse(Buffer.from(payload!, 'base64url').toString()) as { status: { status_list: { idx: number; uri: string } } }
    ).status.status_list;
    const started = Date.now();
    await waitFor(async () => {
      const list = await http('GET', reference.uri);
      expect(list.headers.get('content-type')).toMatch(/^application\/statuslist\+jwt/);
      return getListFromStatusListJWT(list.text).getStatus(reference.idx) === 1;
    }, 30_000);
    expect(Date.now() - started).toBeLessThan(30_000);

    const nonce = 'eu-nonce-2';
    const res = await http('POST', `${eu}/api/v1/presentations`, {
      headers: auth(verifierApp.token),
      json: { presentation: await present(credential, nonce, verifierApp.id), nonce, ...BASIS },
    });
    expect(res.status).toBe(200);
    expect(res.body.valid).toBe(false);
    expect(res.body.checks).toContainEqual({ check: 'status', result: 'failed', reason: 'revoked' });
    await expect((await library()).verify(credential, { currentDate: seconds(clock.now()) })).rejects.toThrow();
    const listed = await http('GET', `${us}/api/v1/credentials?limit=10`, { headers: auth(issuerApp.token) });
    expect((listed.body.data as Json[])[0]).toMatchObject({ id: credentialId, status: 'revoked', revocation_reason: 'consent_withdrawn' });
  });
});
