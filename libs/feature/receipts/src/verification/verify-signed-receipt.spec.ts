import { generateKeyPairSync } from 'node:crypto';
import { signDetachedJws } from '@svc/crypto';
import { consentInput, authorityInput } from '../../test/receipt-fixtures';
import { testSigningKey } from '../../test/signing-fixtures';
import { buildReceipt } from '../record/build-receipt';
import { canonicalReceiptBytes } from '../flavors/canonical';
import { signReceipt } from '../flavors/signed';
import type { ReceiptInput } from '../record/inputs';
import { verifySignedReceipt } from './verify-signed-receipt';

async function signed(
  input: ReceiptInput = consentInput(),
  kid = 'oap-us-v1',
): Promise<{ receipt: { record: Record<string, unknown>; signature: { jws: string } }; jwks: { keys: Array<Record<string, unknown>> } }> {
  const { key, jwks } = testSigningKey(kid);
  const receipt = await signReceipt(buildReceipt(input), key, 'https://us.example/.well-known/jwks.json');
  return { receipt: JSON.parse(JSON.stringify(receipt)) as never, jwks };
}

const text = (value: unknown) => JSON.stringify(value);

/** Spec: signed flavor — offline verification with nothing but the receipt and the JWKS. */
describe('verifySignedReceipt', () => {
  it('accepts a receipt signed by a key of the JWKS and names the record', async () => {
    const { receipt, jwks } = await signed(authorityInput());
    await expect(verifySignedReceipt(text(receipt), text(jwks))).resolves.toEqual({
      ok: true,
      kid: 'oap-us-v1',
      recordId: 'auth_us_aaaaaaaaaaaaaaaaaaaa',
      recordType: 'authorization_record',
    });
  });

  it('finds the signing key among several, skipping keys it cannot use', async () => {
    const { receipt, jwks } = await signed(undefined, 'oap-us-v2');
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey.export({ format: 'jwk' });
    const others = [
      null,
      'text',
      { kty: 'OKP', crv: 'Ed25519', x: jwks.keys[0]!.x },
      { ...rsa, kid: 'rsa-1' },
      ...testSigningKey('oap-us-v1').jwks.keys,
    ];
    await expect(verifySignedReceipt(text(receipt), text({ keys: [...others, ...jwks.keys] }))).resolves.toMatchObject({
      ok: true,
      kid: 'oap-us-v2',
    });
  });

  describe('not_a_receipt', () => {
    it.each([
      ['not JSON', '{nope'],
      ['an array', '[]'],
      ['null', 'null'],
      ['without record', text({ signature: { jws: 'a..b' } })],
      ['a record that is an array', text({ record: [], signature: { jws: 'a..b' } })],
      ['without signature', text({ record: {} })],
      ['a signature that is an array', text({ record: {}, signature: [] })],
      ['a jws that is not a string', text({ record: {}, signature: { jws: 42 } })],
    ])('refuses %s', async (_name, receiptText) => {
      const { jwks } = await signed();
      const result = await verifySignedReceipt(receiptText, text(jwks));
      expect(result).toMatchObject({ ok: false, failure: 'not_a_receipt' });
    });

    it('says which shape it expected', async () => {
      await expect(verifySignedReceipt('{nope', '{"keys":[]}')).resolves.toEqual({
        ok: false,
        failure: 'not_a_receipt',
        message: 'receipt file is not JSON',
      });
      await expect(verifySignedReceipt('{}', '{"keys":[]}')).resolves.toEqual({
        ok: false,
        failure: 'not_a_receipt',
        message: 'not a signed svc-cr receipt: expected {record, signature: {jws}}',
      });
    });
  });

  it.each([
    ['not JSON', '{'],
    ['an array', '[]'],
    ['without keys', '{}'],
    ['keys that are not a list', '{"keys":{}}'],
  ])('refuses a JWKS that is %s', async (_name, jwksText) => {
    const { receipt } = await signed();
    await expect(verifySignedReceipt(text(receipt), jwksText)).resolves.toEqual({
      ok: false,
      failure: 'jwks_invalid',
      message: 'JWKS file is not a JSON Web Key Set of Ed25519 keys',
    });
  });

  it('refuses a record that breaks the schema, naming the first problem', async () => {
    const { receipt, jwks } = await signed();
    (receipt.record.record as Record<string, unknown>).conforms_to = 'something else';
    const result = await verifySignedReceipt(text(receipt), text(jwks));
    expect(result).toMatchObject({ ok: false, failure: 'schema_invalid' });
    expect((result as { message: string }).message).toMatch(/^record does not validate against svc-cr\/2\.13: \/record\/conforms_to \S/);
  });

  it('refuses a signature key that is not in the JWKS, naming its kid', async () => {
    const { receipt } = await signed(undefined, 'oap-us-v7');
    await expect(verifySignedReceipt(text(receipt), text(testSigningKey('oap-us-v1').jwks))).resolves.toEqual({
      ok: false,
      failure: 'unknown_kid',
      message: 'signature key oap-us-v7 is not in the JWKS',
    });
  });

  it('refuses a signature by the right key made for another JWS type', async () => {
    const { key, jwks } = testSigningKey();
    const document = buildReceipt(consentInput());
    const jws = await signDetachedJws(key, canonicalReceiptBytes(document), { typ: 'JWT' });
    const result = await verifySignedReceipt(text({ record: document, signature: { jws } }), text(jwks));
    expect(result).toMatchObject({ ok: false, failure: 'bad_signature' });
  });

  it('refuses a signature by another key under the same kid, and a garbled jws', async () => {
    const { receipt } = await signed();
    const result = await verifySignedReceipt(text(receipt), text(testSigningKey('oap-us-v1').jwks));
    expect(result).toMatchObject({ ok: false, failure: 'bad_signature' });
    expect((result as { message: string }).message).toMatch(/^signature does not verify \(\w+\)$/);
    const { receipt: other, jwks } = await signed();
    await expect(verifySignedReceipt(text({ ...other, signature: { jws: 'garbage' } }), text(jwks))).resolves.toMatchObject({
      ok: false,
      failure: 'bad_signature',
    });
  });
});
