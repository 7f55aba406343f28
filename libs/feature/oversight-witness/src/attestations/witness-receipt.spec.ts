import { createPrivateKey, createPublicKey } from 'node:crypto';
import { PlatformConfig } from '@svc/config';
import { canonicalJson, verifyCompactJws } from '@svc/crypto';
import { type SigningKeyStore } from '@svc/key-store';
import nacl from 'tweetnacl';
import { canonicalAttestationRequest, needsHuman, type AttestationCommand } from './attestation';
import { MAX_WITNESS_RECEIPT_BYTES, WitnessReceiptSigner, policyClaims } from './witness-receipt';

// RFC 8037 Appendix A.1 Ed25519 test key.
const JWK = {
  kty: 'OKP',
  crv: 'Ed25519',
  d: 'nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A',
  x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo',
};
const privateKey = createPrivateKey({ key: JWK, format: 'jwk' });
const publicKey = createPublicKey(privateKey);
const keys = {
  activeKey: async () => ({ kid: 'oap-us-v3', privateKey, publicJwk: { kty: 'OKP', crv: 'Ed25519', x: JWK.x } }),
} as unknown as SigningKeyStore;
const config = Object.assign(new PlatformConfig(), { PUBLIC_BASE_URL: 'https://us.svc.example/' });

const command: AttestationCommand = {
  attestationKey: 'eng-1',
  applicationId: 'tp_us_aaaaaaaaaaaaaaaaaaaa',
  agentClass: 'payments',
  actionClass: 'pay',
  decision: 'allow',
  decidedAt: '2026-03-01T10:00:00Z',
  sequenceNumber: 3,
  legalBasis: 'contract',
  evidenceDigest: 'ab'.repeat(32),
  context: null,
  requiresHumanApproval: false,
};

/** Spec: Runtime receipts (witness column). */
describe('WitnessReceiptSigner', () => {
  const signer = new WitnessReceiptSigner(keys, config);
  const issuedAt = new Date('2026-03-01T10:00:05.900Z');

  it('signs the witness claims with header {alg EdDSA, typ oap+jwt, kid}, exp one hour after iat', async () => {
    const signed = await signer.sign(await signer.signingKey(), {
      attestationId: 'att_us_aaaaaaaaaaaaaaaaaaaaaaaa',
      decision: 'allow',
      legalBasis: 'contract',
      policyRef: 'rego://p',
      policyVersion: '7',
      attestationDigest: `sha256:${'cd'.repeat(32)}`,
      issuedAt,
    });
    const verified = await verifyCompactJws(signed.token, async (kid) => (kid === 'oap-us-v3' ? publicKey : undefined), {
      typ: 'oap+jwt',
      now: issuedAt,
    });
    expect(verified.header).toEqual({ alg: 'EdDSA', typ: 'oap+jwt', kid: 'oap-us-v3' });
    expect(verified.payload).toEqual({
      iss: 'https://us.svc.example',
      iss_role: 'witness',
      oap_ver: '1.0',
      oap_conformance: 'oversight_full',
      jti: signed.jti,
      iat: 1772359205,
      exp: 1772359205 + 3600,
      sub: 'att_us_aaaaaaaaaaaaaaaaaaaaaaaa',
      decision: 'allow',
      legal_basis: 'contract',
      policy_ref: 'rego://p',
      policy_version: '7',
      attestation_digest: `sha256:${'cd'.repeat(32)}`,
    });
    expect(signed.jti).toMatch(/^wrec_[a-z2-7]{24}$/);
    const [h, p, s] = signed.token.split('.') as [string, string, string];
    expect(nacl.sign.detached.verify(Buffer.from(`${h}.${p}`), Buffer.from(s, 'base64url'), Buffer.from(JWK.x, 'base64url'))).toBe(true);
    expect(Buffer.from(p, 'base64url').toString('utf8')).toBe(canonicalJson(verified.payload));
  });

  it('stays under 2 KB with the longest claims an attestation can produce', async () => {
    const signed = await signer.sign(await signer.signingKey(), {
      attestationId: 'att_us_aaaaaaaaaaaaaaaaaaaaaaaa',
      decision: 'countered',
      legalBasis: 'legitimate_interests',
      policyRef: 'r'.repeat(128),
      policyVersion: 'v'.repeat(128),
      attestationDigest: `sha256:${'cd'.repeat(32)}`,
      issuedAt,
    });
    expect(Buffer.byteLength(signed.token)).toBeLessThanOrEqual(MAX_WITNESS_RECEIPT_BYTES);
  });
});

describe('policyClaims', () => {
  it('takes policy_ref / policy_version from the context when they are short strings', () => {
    expect(policyClaims({ policy_ref: 'opa://bundle', policy_version: '12' }, 'tatr_x')).toEqual({
      policyRef: 'opa://bundle',
      policyVersion: '12',
    });
  });
  it.each([[null], [{}], [{ policy_ref: 3 }], [{ policy_ref: '' }], [{ policy_ref: 'x'.repeat(129) }]])(
    'falls back to the attester id for %j',
    (context) => {
      expect(policyClaims(context as Record<string, unknown> | null, 'tatr_x')).toEqual({ policyRef: 'tatr_x', policyVersion: null });
    },
  );
});

describe('attestation request', () => {
  it('canonicalises with explicit defaults so the alias and omitted optionals hash alike', () => {
    expect(canonicalJson(canonicalAttestationRequest(command))).toBe(
      '{"action_class":"pay","agent_class":"payments","application_id":"tp_us_aaaaaaaaaaaaaaaaaaaa","attestation_id":"eng-1","context":null,"decided_at":"2026-03-01T10:00:00Z","decision":"allow","evidence_digest":"' +
        'ab'.repeat(32) +
        '","legal_basis":"contract","requires_human_approval":false,"sequence_number":3}',
    );
  });
  it.each([
    ['allow', false, false],
    ['deny', false, false],
    ['escalate', false, true],
    ['allow', true, true],
  ] as const)('decision %s with requires_human_approval %s needs a human: %s', (decision, requiresHumanApproval, expected) => {
    expect(needsHuman({ decision, requiresHumanApproval })).toBe(expected);
  });
});
