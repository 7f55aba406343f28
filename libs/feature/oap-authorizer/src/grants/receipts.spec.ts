import { generateKeyPairSync, verify } from 'node:crypto';
import { PlatformConfig } from '@svc/config';
import { ed25519PublicJwk } from '@svc/crypto';
import { type SigningKeyStore } from '@svc/key-store';
import { MAX_RECEIPT_BYTES, ReceiptSigner, type AuthorizerReceiptInput } from './receipts';

const { privateKey, publicKey } = generateKeyPairSync('ed25519');
const keys = {
  activeKey: async () => ({ kid: 'oap-us-v1', privateKey, publicJwk: ed25519PublicJwk(publicKey) }),
} as unknown as SigningKeyStore;
const signer = new ReceiptSigner(keys, Object.assign(new PlatformConfig(), { PUBLIC_BASE_URL: 'https://us.example/' }));
const NOW = new Date('2026-03-04T10:30:00Z');

function input(overrides: Partial<AuthorizerReceiptInput> = {}): AuthorizerReceiptInput {
  return {
    grantId: 'ath_us_aaaaaaaaaaaaaaaaaaaaaaaa',
    applicationId: 'tp_us_aaaaaaaaaaaaaaaaaaaa',
    scopes: ['payments:write'],
    actions: ['pay'],
    value: { amount: '12.50', currency: 'EUR' },
    chronicleId: 'audit-us',
    contextHash: 'a'.repeat(64),
    issuedAt: NOW,
    grantValidUntil: new Date(NOW.getTime() + 86_400_000),
    delegationChain: [],
    ...overrides,
  };
}

function claimsOf(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as Record<string, unknown>;
}

describe('authorizer runtime receipts (spec: Runtime receipts)', () => {
  it('carries the authorizer claims of the table, EdDSA / oap+jwt / oap-<region>-vN', async () => {
    const { token } = await signer.signAuthorizerReceipt(input());
    const [h, p, s] = token.split('.') as [string, string, string];
    expect(JSON.parse(Buffer.from(h, 'base64url').toString())).toEqual({ alg: 'EdDSA', typ: 'oap+jwt', kid: 'oap-us-v1' });
    expect(verify(null, Buffer.from(`${h}.${p}`), publicKey, Buffer.from(s, 'base64url'))).toBe(true);
    const claims = claimsOf(token);
    for (const claim of [
      'iss',
      'iss_role',
      'oap_ver',
      'oap_conformance',
      'jti',
      'iat',
      'exp',
      'aud',
      'grant_id',
      'action',
      'scope',
      'value',
      'currency',
      'chronicle_id',
      'single_use',
      'context_hash',
    ]) {
      expect(claims).toHaveProperty(claim);
    }
    expect(claims).toMatchObject({ iss: 'https://us.example', iss_role: 'authorizer', exp: Math.floor(NOW.getTime() / 1000) + 3600 });
  });

  it('ends no later than the grant', async () => {
    const { claims } = await signer.signAuthorizerReceipt(input({ grantValidUntil: new Date(NOW.getTime() + 60_000) }));
    expect(claims.exp).toBe(Math.floor(NOW.getTime() / 1000) + 60);
  });

  it('stays under 2 KB with maximal metadata and a 16-hop chain, digesting the largest overlays', async () => {
    const long = (n: number) => 'x'.repeat(n);
    const hop = (i: number) => ({
      iss: long(200),
      sub: long(200),
      aud: long(200),
      delegated_at: NOW.toISOString(),
      scope: 'payments:write',
      purpose: 'p',
      jti: `${i}${long(100)}`,
    });
    const { token, claims } = await signer.signAuthorizerReceipt(
      input({
        metadata: {
          agent_type: 'assistant',
          agent_model: long(200),
          agent_provider: long(200),
          agent_version: long(100),
          agent_instance_id: long(200),
          delegator_sub: long(200),
          delegation_purpose: long(1000),
        },
        delegationChain: Array.from({ length: 16 }, (_, i) => hop(i)),
      }),
    );
    expect(Buffer.byteLength(token)).toBeLessThanOrEqual(MAX_RECEIPT_BYTES);
    expect(claims.delegation_chain).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(claims.agent_type).toBe('assistant');
  });

  it('includes the attestation overlay only before its exp, never the JWT', async () => {
    const iat = Math.floor(NOW.getTime() / 1000);
    const overlay = {
      format: 'urn:svc:agent_attestation:vendor-jwt-v1',
      iss: 'https://vendor.example',
      jti: 'j',
      iat: iat - 10,
      exp: iat + 600,
      claims_digest: 'b'.repeat(64),
    };
    expect(claimsOf((await signer.signAuthorizerReceipt(input({ attestation: overlay }))).token).agent_attestation).toEqual(overlay);
    expect(claimsOf((await signer.signAuthorizerReceipt(input({ attestation: { ...overlay, exp: iat - 1 } }))).token)).not.toHaveProperty(
      'agent_attestation',
    );
  });
});
