import { generateKeyPairSync } from 'node:crypto';
import { signCompactJws } from '@svc/crypto';
import { ed25519PublicKeyRaw, verifierKeyString } from '@svc/merkle';
import { createTestDatabase, startLoopbackWitness, type LoopbackWitness } from '@svc/testing';
import { EVIDENCE_PACKAGE_TYP, verifyEvidencePackage } from '../src/evidence/verify-evidence-package';
import { evidenceProofs } from '../src/proofs/evidence-proofs';
import { entries, openChain, type ChainFixture } from './support/chain-fixture';

/**
 * Issue 18 item 5: evidence packages prove their audit entries against a witnessed checkpoint. The
 * proofs come from `evidenceProofs` (the `audit.get_inclusion_proofs` RPC); the package verifies
 * offline with the region key and the witness's verifier key, and fails with any other witness key.
 */
describe('evidence proofs against a witness-cosigned checkpoint (loopback witness)', () => {
  let witness: LoopbackWitness;
  let f: ChainFixture;

  beforeAll(async () => {
    witness = await startLoopbackWitness('witness.test/evidence', () => f.clock.now().getTime());
    f = await openChain(await createTestDatabase('audit_evidence'), {
      AUDIT_WITNESS_URL: witness.url,
      AUDIT_WITNESS_KEY: witness.verifierKey,
    });
    const key = await f.keys.activeKey();
    witness.trust(verifierKeyString(f.chain.origin, ed25519PublicKeyRaw(key.privateKey)));
  });
  afterAll(async () => {
    await f?.close();
    await witness?.close();
  });

  it('makes and gets cosigned a checkpoint covering the entries when none does, and the package verifies offline', async () => {
    const appended = await f.chain.appender.append(entries(5));
    const ids = appended.map((entry) => entry.id).slice(1, 4);
    const evidence = (await evidenceProofs(f.chain, ids)) as {
      checkpoint: Record<string, unknown> & { witness: { status: string } };
      proofs: Array<Record<string, unknown>>;
    };
    expect(evidence.checkpoint.witness.status).toBe('cosigned');
    expect(evidence.proofs).toHaveLength(3);

    const key = await f.keys.activeKey();
    const content = {
      object: 'evidence_package',
      format: 1,
      kind: 'transfer_register',
      region: 'us',
      transfers: [],
      audit: evidence,
      jwks: await f.keys.jwks(),
    };
    const jws = await signCompactJws(key, content, { typ: EVIDENCE_PACKAGE_TYP });
    await expect(verifyEvidencePackage(jws, { witnessKey: witness.verifierKey })).resolves.toMatchObject({
      valid: true,
      witnessed: true,
      witness_verified: true,
      proofs_verified: 3,
      failures: [],
    });

    const { publicKey } = generateKeyPairSync('ed25519');
    const otherWitness = verifierKeyString('witness.test/evidence', ed25519PublicKeyRaw(publicKey));
    const wrong = await verifyEvidencePackage(jws, { witnessKey: otherWitness });
    expect(wrong.valid).toBe(false);

    // A later request reuses the covering cosigned checkpoint instead of making another.
    const again = (await evidenceProofs(f.chain, ids)) as { checkpoint: { sequence: number } };
    expect(again.checkpoint.sequence).toBe(evidence.checkpoint.sequence);
  });

  it('answers 404 naming an unknown entry id', async () => {
    await expect(evidenceProofs(f.chain, ['audit_rec_aaaaaaaaaaaaaaaaaaaaaaaa'])).rejects.toMatchObject({ code: 'audit_entry_not_found' });
  });
});
