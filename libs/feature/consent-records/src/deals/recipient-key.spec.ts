import { compactDecrypt, decodeProtectedHeader, exportJWK, generateKeyPair } from 'jose';
import { encryptForRecipient, jwkThumbprint, recipientKeyAlgorithm } from './recipient-key';

describe('recipient keys of secure transfers', () => {
  it('accepts public EC, X25519 and RSA (2048+) keys, each with its JWE algorithm', async () => {
    expect(recipientKeyAlgorithm(await exportJWK((await generateKeyPair('ECDH-ES+A256KW', { crv: 'P-256' })).publicKey))).toBe(
      'ECDH-ES+A256KW',
    );
    expect(recipientKeyAlgorithm(await exportJWK((await generateKeyPair('ECDH-ES+A256KW', { crv: 'X25519' })).publicKey))).toBe(
      'ECDH-ES+A256KW',
    );
    expect(recipientKeyAlgorithm(await exportJWK((await generateKeyPair('RSA-OAEP-256', { modulusLength: 2048 })).publicKey))).toBe(
      'RSA-OAEP-256',
    );
  });

  it('refuses private members, signing-only use, short RSA moduli, other curves and non-objects', async () => {
    const { publicKey, privateKey } = await generateKeyPair('ECDH-ES+A256KW', { crv: 'P-256', extractable: true });
    expect(recipientKeyAlgorithm(await exportJWK(privateKey))).toBeUndefined();
    expect(recipientKeyAlgorithm({ ...(await exportJWK(publicKey)), use: 'sig' })).toBeUndefined();
    expect(recipientKeyAlgorithm({ kty: 'RSA', n: 'AQAB'.repeat(40), e: 'AQAB' })).toBeUndefined();
    expect(recipientKeyAlgorithm({ kty: 'OKP', crv: 'Ed25519', x: 'abc' })).toBeUndefined();
    expect(recipientKeyAlgorithm({ kty: 'oct', k: 'abc' })).toBeUndefined();
    expect(recipientKeyAlgorithm(null)).toBeUndefined();
    expect(recipientKeyAlgorithm([])).toBeUndefined();
  });

  it("computes the RFC 7638 thumbprint (the RFC's example key)", () => {
    const n =
      '0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw';
    expect(jwkThumbprint({ kty: 'RSA', n, e: 'AQAB', alg: 'RS256', kid: '2011-04-29' })).toBe(
      'NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs',
    );
  });

  it('encrypts to the key (A256GCM), naming the key and the transfer in the protected header', async () => {
    const { publicKey, privateKey } = await generateKeyPair('RSA-OAEP-256', { modulusLength: 2048 });
    const jwk = { ...(await exportJWK(publicKey)) } as Record<string, unknown>;
    const { jwe, alg, kid } = await encryptForRecipient(jwk, '{"a":1}', 'dtx_us_abcdefghijklmnopqrst');
    expect([alg, kid]).toEqual(['RSA-OAEP-256', jwkThumbprint(jwk)]);
    expect(decodeProtectedHeader(jwe)).toMatchObject({
      alg: 'RSA-OAEP-256',
      enc: 'A256GCM',
      kid,
      svc_transfer_id: 'dtx_us_abcdefghijklmnopqrst',
    });
    expect(new TextDecoder().decode((await compactDecrypt(jwe, privateKey)).plaintext)).toBe('{"a":1}');
  });
});
