import { createHash, generateKeyPairSync, sign } from 'node:crypto';
import { canonicalJson, signCompactJws, type ActiveSigningKey } from '@svc/crypto';
import { testSigningKey } from '../../test/signing-fixtures';
import { SIGNATURE_RECEIPT_TYP, signatureChallenge, verifyAgreementReceipt } from './verify-agreement-receipt';

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
    return canonicalJson({
      object: 'agreement_receipt',
      agreement_id: AGREEMENT,
      document_sha256: DIGEST,
      status,
      quorum: QUORUM,
      signatures,
      ...extra,
    });
  }

  it('accepts an active agreement whose signatures, made in two regions, reach the quorum', async () => {
    const text = await receiptText('active', [
      await partyReceipt(us.key, 'pty_aaaaaaaaaaaaaaaaaaaa', 'signed'),
      await partyReceipt(eu.key, 'pty_bbbbbbbbbbbbbbbbbbbb', 'signed'),
    ]);
    await expect(verifyAgreementReceipt(text, jwks, DOCUMENT)).resolves.toEqual({
      ok: true,
      agreementId: AGREEMENT,
      status: 'active',
      signed: 2,
      required: 2,
      answers: 2,
      kids: ['oap-us-v1', 'oap-eu-v1'],
      passkeys: 0,
      documentSha256: DIGEST,
      amendments: 0,
    });
  });

  it('refuses every one-byte change of the receipt file', async () => {
    const text = await receiptText('active', [
      await partyReceipt(us.key, 'pty_aaaaaaaaaaaaaaaaaaaa', 'signed'),
      await partyReceipt(eu.key, 'pty_bbbbbbbbbbbbbbbbbbbb', 'signed'),
    ]);
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
    [
      'a key in no JWKS',
      async () =>
        receiptText('partially_signed', [await partyReceipt(testSigningKey('oap-ap-v1').key, 'pty_aaaaaaaaaaaaaaaaaaaa', 'signed')]),
      'unknown_kid',
    ],
    [
      'a signature about another document',
      async () =>
        receiptText('partially_signed', [
          await partyReceipt(us.key, 'pty_aaaaaaaaaaaaaaaaaaaa', 'signed', { document_sha256: '0'.repeat(64) }),
        ]),
      'inconsistent',
    ],
    [
      'a party counted twice',
      async () =>
        receiptText('active', [
          await partyReceipt(us.key, 'pty_aaaaaaaaaaaaaaaaaaaa', 'signed'),
          await partyReceipt(us.key, 'pty_aaaaaaaaaaaaaaaaaaaa', 'signed'),
        ]),
      'inconsistent',
    ],
    [
      'active short of the quorum',
      async () =>
        receiptText('active', [
          await partyReceipt(us.key, 'pty_aaaaaaaaaaaaaaaaaaaa', 'signed'),
          await partyReceipt(us.key, 'pty_bbbbbbbbbbbbbbbbbbbb', 'declined'),
        ]),
      'inconsistent',
    ],
    ['a field added', async () => receiptText('pending', [], { note: 'x' }), 'not_a_receipt'],
  ])('refuses %s', async (_name, build, failure) => {
    await expect(verifyAgreementReceipt(await build(), jwks)).resolves.toMatchObject({ ok: false, failure });
  });

  it('refuses a document that does not have the signed digest', async () => {
    const text = await receiptText('partially_signed', [await partyReceipt(us.key, 'pty_aaaaaaaaaaaaaaaaaaaa', 'signed')]);
    await expect(verifyAgreementReceipt(text, jwks, Buffer.from('Another text.\n'))).resolves.toMatchObject({
      ok: false,
      failure: 'document_mismatch',
    });
  });

  describe('a signer passkey assertion bound into a signature', () => {
    const SIGNER = 'usr_us_abcdefghijklmnopqrst';
    const PARTY = 'pty_aaaaaaaaaaaaaaaaaaaa';
    const credential = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const publicKey = credential.publicKey.export({ format: 'jwk' }) as Record<string, string>;

    /** What an authenticator and browser return for a challenge at an origin (ES256, user present and verified). */
    function assertion(challenge: string, origin = 'https://us.example', overrides: Record<string, unknown> = {}): Record<string, unknown> {
      const clientData = Buffer.from(JSON.stringify({ type: 'webauthn.get', challenge, origin, crossOrigin: false }), 'utf8');
      const authenticatorData = Buffer.concat([
        createHash('sha256').update(new URL(origin).hostname).digest(),
        Buffer.from([0x05, 0, 0, 0, 7]),
      ]);
      const signature = sign(
        'sha256',
        Buffer.concat([authenticatorData, createHash('sha256').update(clientData).digest()]),
        credential.privateKey,
      );
      return {
        credential_id: 'cred-1',
        public_key: { kty: publicKey.kty!, crv: publicKey.crv!, x: publicKey.x!, y: publicKey.y!, alg: 'ES256' },
        challenge,
        authenticator_data: authenticatorData.toString('base64url'),
        client_data_json: clientData.toString('base64url'),
        signature: signature.toString('base64url'),
        user_verified: true,
        ...overrides,
      };
    }
    const challenge = signatureChallenge({ agreement_id: AGREEMENT, party_id: PARTY, document_sha256: DIGEST, signer: SIGNER });
    const signedWith = async (bound: Record<string, unknown> | undefined, extra: Record<string, unknown> = {}) =>
      receiptText('partially_signed', [
        await partyReceipt(us.key, PARTY, 'signed', {
          signer_authentication: 'passkey',
          ...(bound ? { passkey_assertion: bound } : {}),
          ...extra,
        }),
      ]);

    it('accepts an assertion over this signature by the bound credential, and counts it', async () => {
      await expect(verifyAgreementReceipt(await signedWith(assertion(challenge)), jwks)).resolves.toMatchObject({
        ok: true,
        passkeys: 1,
        signed: 1,
      });
      const session = await receiptText('partially_signed', [
        await partyReceipt(us.key, PARTY, 'signed', { signer_authentication: 'session' }),
      ]);
      await expect(verifyAgreementReceipt(session, jwks)).resolves.toMatchObject({ ok: true, passkeys: 0 });
    });

    it.each([
      ['missing while the signature says passkey', () => undefined, {}],
      [
        'over another signature (another party)',
        () =>
          assertion(
            signatureChallenge({ agreement_id: AGREEMENT, party_id: 'pty_bbbbbbbbbbbbbbbbbbbb', document_sha256: DIGEST, signer: SIGNER }),
          ),
        {},
      ],
      ['from another origin', () => assertion(challenge, 'https://evil.example'), {}],
      [
        'with a changed signature byte',
        () => {
          const bound = assertion(challenge);
          const bytes = Buffer.from(String(bound.signature), 'base64url');
          bytes[10] = bytes[10]! ^ 0x01;
          return { ...bound, signature: bytes.toString('base64url') };
        },
        {},
      ],
      [
        'with another credential key',
        () => ({
          ...assertion(challenge),
          public_key: generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ format: 'jwk' }),
        }),
        {},
      ],
      ['on a declined outcome', () => assertion(challenge), { outcome: 'declined' }],
    ])('refuses an assertion %s', async (_name, build, extra) => {
      await expect(verifyAgreementReceipt(await signedWith(build(), extra), jwks)).resolves.toMatchObject({
        ok: false,
        failure: 'bad_passkey_assertion',
      });
    });
  });

  describe('amendments: the chain of documents in the receipt', () => {
    const AMENDED = createHash('sha256').update('The parties agree, amended.\n').digest('hex');
    const AMENDMENT = 'amd_abcdefghijklmnopqrst';
    const vote = (key: ActiveSigningKey, party: string, outcome: string, overrides: Record<string, unknown> = {}) =>
      partyReceipt(key, party, outcome, { amendment_id: AMENDMENT, document_sha256: AMENDED, ...overrides });
    const withAmendment = async (amendment: Record<string, unknown>) =>
      receiptText(
        'active',
        [
          await partyReceipt(us.key, 'pty_aaaaaaaaaaaaaaaaaaaa', 'signed'),
          await partyReceipt(eu.key, 'pty_bbbbbbbbbbbbbbbbbbbb', 'signed'),
        ],
        {
          amendments: [
            {
              amendment_id: AMENDMENT,
              number: 1,
              previous_document_sha256: DIGEST,
              document_sha256: AMENDED,
              status: 'adopted',
              ...amendment,
            },
          ],
        },
      );

    it('accepts an amendment adopted by the quorum of its own votes; the amended document is the one in force', async () => {
      const text = await withAmendment({
        signatures: [await vote(us.key, 'pty_aaaaaaaaaaaaaaaaaaaa', 'signed'), await vote(eu.key, 'pty_bbbbbbbbbbbbbbbbbbbb', 'signed')],
      });
      await expect(verifyAgreementReceipt(text, jwks, Buffer.from('The parties agree, amended.\n'))).resolves.toMatchObject({
        ok: true,
        amendments: 1,
        documentSha256: AMENDED,
      });
    });

    it.each([
      [
        'adopted short of the quorum',
        async () =>
          withAmendment({
            signatures: [
              await vote(us.key, 'pty_aaaaaaaaaaaaaaaaaaaa', 'signed'),
              await vote(eu.key, 'pty_bbbbbbbbbbbbbbbbbbbb', 'declined'),
            ],
          }),
        'inconsistent',
      ],
      [
        'a vote on another amendment',
        async () =>
          withAmendment({
            status: 'partially_signed',
            signatures: [await vote(us.key, 'pty_aaaaaaaaaaaaaaaaaaaa', 'signed', { amendment_id: 'amd_bbbbbbbbbbbbbbbbbbbb' })],
          }),
        'inconsistent',
      ],
      [
        'a vote over the original document',
        async () =>
          withAmendment({
            status: 'partially_signed',
            signatures: [await vote(us.key, 'pty_aaaaaaaaaaaaaaaaaaaa', 'signed', { document_sha256: DIGEST })],
          }),
        'inconsistent',
      ],
      [
        'a break in the chain of documents',
        async () => withAmendment({ status: 'rejected', previous_document_sha256: '1'.repeat(64), signatures: [] }),
        'inconsistent',
      ],
    ])('refuses %s', async (_name, build, failure) => {
      await expect(verifyAgreementReceipt(await build(), jwks)).resolves.toMatchObject({ ok: false, failure });
    });
  });
});
