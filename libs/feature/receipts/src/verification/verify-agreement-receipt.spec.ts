import { createHash } from 'node:crypto';
import { canonicalJson, signCompactJws, type ActiveSigningKey } from '@svc/crypto';
import { testSigningKey } from '../../test/signing-fixtures';
import { SIGNATURE_RECEIPT_TYP, verifyAgreementReceipt } from './verify-agreement-receipt';

const DOCUMENT = Buffer.from('The parties agree.\n', 'utf8');
const DIGEST = createHash('sha256').update(DOCUMENT).digest('hex');
const AGREEMENT = 'agr_us_abcdefghijklmnopqrst';
const QUORUM = { type: 'majority', required: 2 };

/** One party's receipt as decision-gateway signs it. */
function partyReceipt(key: ActiveSigningKey, party: string, outcome: string, overrides: Record<string, unknown> = {}): Promise<string> {
  return signCompactJws(
    key,
    {
      iss: 'https://us.example',
      iat: Math.floor(Date.now() / 1000),
      agreement_id: AGREEMENT,
      party_id: party,
      role: 'owner',
      signer: 'usr_us_abcdefghijklmnopqrst',
      document_sha256: DIGEST,
      outcome,
      decided_at: new Date().toISOString(),
      quorum: QUORUM,
      ...overrides,
    },
    { typ: SIGNATURE_RECEIPT_TYP },
  );
}

describe('verifyAgreementReceipt (issue 24: the receipt is the set of signatures, verifiable offline)', () => {
  const us = testSigningKey('oap-us-v1');
  const eu = testSigningKey('oap-eu-v1');
  const jwks = [JSON.stringify(us.jwks), JSON.stringify(eu.jwks)];

  async function receiptText(status: string, signatures: string[], extra: Record<string, unknown> = {}): Promise<string> {
    return canonicalJson({ object: 'agreement_receipt', agreement_id: AGREEMENT, document_sha256: DIGEST, status, quorum: QUORUM, signatures, ...extra });
  }

  it('accepts an active agreement whose signatures, made in two regions, reach the quorum', async () => {
    const text = await receiptText('active', [await partyReceipt(us.key, 'pty_aaaaaaaaaaaaaaaaaaaa', 'signed'), await partyReceipt(eu.key, 'pty_bbbbbbbbbbbbbbbbbbbb', 'signed')]);
    await expect(verifyAgreementReceipt(text, jwks, DOCUMENT)).resolves.toEqual({
      ok: true,
      agreementId: AGREEMENT,
      status: 'active',
      signed: 2,
      required: 2,
      answers: 2,
      kids: ['oap-us-v1', 'oap-eu-v1'],
    });
  });

  it('refuses every one-byte change of the receipt file', async () => {
    const text = await receiptText('active', [await partyReceipt(us.key, 'pty_aaaaaaaaaaaaaaaaaaaa', 'signed'), await partyReceipt(eu.key, 'pty_bbbbbbbbbbbbbbbbbbbb', 'signed')]);
    const bytes = Buffer.from(text, 'utf8');
    for (let at = 0; at < bytes.length; at += 7) {
      const changed = Buffer.from(bytes);
      changed[at] = changed[at] === 0x41 ? 0x42 : 0x41;
      const result = await verifyAgreementReceipt(changed.toString('latin1'), jwks);
      expect(result.ok).toBe(false);
    }
    await expect(verifyAgreementReceipt(`${text}\n`, jwks)).resolves.toMatchObject({ ok: false, failure: 'not_canonical' });
  });

  it.each([
    ['a key in no JWKS', async () => receiptText('partially_signed', [await partyReceipt(testSigningKey('oap-ap-v1').key, 'pty_aaaaaaaaaaaaaaaaaaaa', 'signed')]), 'unknown_kid'],
    ['a signature about another document', async () => receiptText('partially_signed', [await partyReceipt(us.key, 'pty_aaaaaaaaaaaaaaaaaaaa', 'signed', { document_sha256: '0'.repeat(64) })]), 'inconsistent'],
    ['a party counted twice', async () => receiptText('active', [await partyReceipt(us.key, 'pty_aaaaaaaaaaaaaaaaaaaa', 'signed'), await partyReceipt(us.key, 'pty_aaaaaaaaaaaaaaaaaaaa', 'signed')]), 'inconsistent'],
    ['active short of the quorum', async () => receiptText('active', [await partyReceipt(us.key, 'pty_aaaaaaaaaaaaaaaaaaaa', 'signed'), await partyReceipt(us.key, 'pty_bbbbbbbbbbbbbbbbbbbb', 'declined')]), 'inconsistent'],
    ['a field added', async () => receiptText('pending', [], { note: 'x' }), 'not_a_receipt'],
  ])('refuses %s', async (_name, build, failure) => {
    await expect(verifyAgreementReceipt(await build(), jwks)).resolves.toMatchObject({ ok: false, failure });
  });

  it('refuses a document that does not have the signed digest', async () => {
    const text = await receiptText('partially_signed', [await partyReceipt(us.key, 'pty_aaaaaaaaaaaaaaaaaaaa', 'signed')]);
    await expect(verifyAgreementReceipt(text, jwks, Buffer.from('Another text.\n'))).resolves.toMatchObject({ ok: false, failure: 'document_mismatch' });
  });
});
