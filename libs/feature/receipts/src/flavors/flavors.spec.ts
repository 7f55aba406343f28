import canonicalize from 'canonicalize';
import { canonicalJson, sha256Hex } from '@svc/crypto';
import { authorityInput, anonymousConsentInput, consentInput, noticeInput } from '../../test/receipt-fixtures';
import { flipOneByte, naclVerify, testSigningKey } from '../../test/signing-fixtures';
import { projectReceipt } from '../events/project-events';
import { buildReceipt } from '../record/build-receipt';
import type { ReceiptInput } from '../record/inputs';
import type { ReceiptDocument } from '../record/receipt-document';
import { validateReceiptDocument } from '../schema/published-schema';
import { verifySignedReceipt } from '../verification/verify-signed-receipt';
import { canonicalReceiptBytes } from './canonical';
import { dpvReceipt, isPureAuthority } from './dpv';
import { parseFlavor } from './flavor';
import { signReceipt } from './signed';

const NOW = new Date('2026-03-01T00:00:00Z');
const render = (input: ReceiptInput) => projectReceipt(buildReceipt(input), [], NOW);
const independentCanonical = (value: unknown): string => canonicalize(value) as string;

const INPUTS: Array<[string, ReceiptInput]> = [
  ['identified consent', consentInput()],
  ['anonymous consent', anonymousConsentInput()],
  ['notice', noticeInput()],
  ['authorization', authorityInput()],
];

/** Spec: What the service does 4 — export flavors canonical, dpv, signed. */
describe('flavors', () => {
  it('parses ?flavor=: canonical by default, unknown values refused with unknown_flavor', () => {
    expect(parseFlavor(undefined)).toBe('canonical');
    expect(parseFlavor('signed')).toBe('signed');
    expect(() => parseFlavor('xml')).toThrow(expect.objectContaining({ code: 'unknown_flavor', kind: 'invalid' }));
    expect(() => parseFlavor(['dpv'])).toThrow(expect.objectContaining({ code: 'unknown_flavor' }));
  });

  describe.each(INPUTS)('%s record', (_name, input) => {
    const { document, status } = render(input);

    it('canonical: RFC 8785 bytes that parse back to a schema-valid document', () => {
      const bytes = canonicalReceiptBytes(document);
      expect(bytes.toString('utf8')).toBe(independentCanonical(document));
      expect(validateReceiptDocument(JSON.parse(bytes.toString('utf8')))).toEqual({ valid: true });
    });

    it('signed: verifies offline (our verifier and tweetnacl); flipping one byte fails both', async () => {
      const { key, jwks } = testSigningKey();
      const signed = await signReceipt(document, key, 'https://us.example/.well-known/jwks.json');
      expect(validateReceiptDocument(signed.record)).toEqual({ valid: true });
      const text = JSON.stringify(signed, null, 2);
      await expect(verifySignedReceipt(text, JSON.stringify(jwks))).resolves.toEqual({
        ok: true,
        kid: 'oap-us-v1',
        recordId: document.record.record_id,
        recordType: document.record.record_type,
      });
      expect(naclVerify(text, jwks, independentCanonical)).toBe(true);
      const tampered = flipOneByte(text, `"record_id": "${document.record.record_id.slice(0, 6)}`);
      await expect(verifySignedReceipt(tampered, JSON.stringify(jwks))).resolves.toMatchObject({ ok: false, failure: 'bad_signature' });
      expect(naclVerify(tampered, jwks, independentCanonical)).toBe(false);
    });

    it(`dpv: ${isPureAuthority(document) ? 'unavailable' : 'JSON-LD in the DPV vocabulary, bound to the canonical document'}`, () => {
      if (isPureAuthority(document)) {
        expect(() => dpvReceipt(document, status)).toThrow(expect.objectContaining({ code: 'dpv_unavailable' }));
        return;
      }
      const graph = dpvReceipt(document, status);
      expect(graph['@context']).toMatchObject({ dpv: 'https://w3id.org/dpv#' });
      expect(graph['dct:conformsTo']).toBe('ISO/IEC TS 27560:2023');
      expect(graph['svc:canonicalSha256']).toBe(sha256Hex(canonicalReceiptBytes(document)));
      expect(graph['dpv:hasPurpose']).toHaveLength(document.pii_processing.purposes.length);
      // The embedded source document (JSON-LD @json literal) validates against the published schema.
      expect(validateReceiptDocument(graph.record)).toEqual({ valid: true });
      expect(graph.record).toEqual(document);
      expect(() => canonicalJson(graph)).not.toThrow();
    });
  });

  it('dpv maps consent status, legal bases, parties and the notice', () => {
    const { document, status } = render(consentInput());
    const graph = dpvReceipt(document, status);
    expect(graph['@type']).toBe('dpv:ConsentRecord');
    expect(graph['dpv:hasConsentStatus']).toEqual({ '@id': 'dpv:ConsentGiven' });
    expect(graph['dpv:hasPurpose']).toEqual([
      {
        '@id': 'urn:svc:purpose:marketing',
        '@type': 'dpv:Purpose',
        'dct:description': 'Marketing emails',
        'dpv:hasLegalBasis': { '@id': 'dpv:Consent' },
      },
      {
        '@id': 'urn:svc:purpose:analytics',
        '@type': 'dpv:Purpose',
        'dct:description': 'Product analytics',
        'dpv:hasLegalBasis': { '@id': 'dpv:LegitimateInterest' },
      },
    ]);
    expect(graph['dpv:hasDataController']).toEqual([
      { '@id': 'urn:svc:party:tp_us_aaaaaaaaaaaaaaaaaaaa', '@type': 'dpv:DataController', 'dct:title': 'Acme Ltd' },
    ]);
    expect(graph['dpv:hasDataSubject']).toEqual({ '@id': 'urn:svc:principal:subj_9f2c', '@type': 'dpv:DataSubject' });
    expect(graph['dpv:hasNotice']).toMatchObject({
      '@type': 'dpv:PrivacyNotice',
      'svc:noticeSha256': document.pii_processing.privacy_notice!.hash,
    });
  });

  it('dpv is unavailable for a pure-authority record (no purposes) and available for an authority with purposes', () => {
    const pure = render(authorityInput({ purposes: [] }));
    expect(isPureAuthority(pure.document)).toBe(true);
    expect(() => dpvReceipt(pure.document, pure.status)).toThrow(
      expect.objectContaining({ code: 'dpv_unavailable', kind: 'unprocessable' }),
    );
    const withPurpose = render(authorityInput());
    expect(dpvReceipt(withPurpose.document, withPurpose.status)['@type']).toBe('dpv:PersonalDataHandling');
  });

  it('not_signable: a document that does not conform is never signed', async () => {
    const { key } = testSigningKey();
    const broken = structuredClone(render(consentInput()).document) as ReceiptDocument & { authority?: unknown };
    broken.authority = { withdrawal_method: 'https://x.example/w' };
    await expect(signReceipt(broken, key, 'https://us.example/.well-known/jwks.json')).rejects.toMatchObject({
      code: 'not_signable',
      kind: 'unprocessable',
      detail: { reason: 'schema_invalid' },
    });
  });

  describe('offline verifier failures', () => {
    async function signedText(): Promise<{ text: string; jwks: string }> {
      const { key, jwks } = testSigningKey();
      return {
        text: JSON.stringify(await signReceipt(render(consentInput()).document, key, 'https://us.example/jwks')),
        jwks: JSON.stringify(jwks),
      };
    }

    it('unknown kid: the JWKS does not hold the signing key', async () => {
      const { text } = await signedText();
      await expect(verifySignedReceipt(text, JSON.stringify(testSigningKey('oap-us-v2').jwks))).resolves.toMatchObject({
        ok: false,
        failure: 'unknown_kid',
      });
    });

    it('bad signature: right kid, different key', async () => {
      const { text } = await signedText();
      await expect(verifySignedReceipt(text, JSON.stringify(testSigningKey('oap-us-v1').jwks))).resolves.toMatchObject({
        ok: false,
        failure: 'bad_signature',
      });
    });

    it('not a receipt: not JSON, or JSON without {record, signature.jws}', async () => {
      const { jwks } = await signedText();
      await expect(verifySignedReceipt('{nope', jwks)).resolves.toMatchObject({ failure: 'not_a_receipt' });
      await expect(verifySignedReceipt('{"record":{}}', jwks)).resolves.toMatchObject({ failure: 'not_a_receipt' });
    });

    it('schema invalid: a record that breaks a schema rule, even if re-signed', async () => {
      const { text, jwks } = await signedText();
      const receipt = JSON.parse(text) as { record: { record: Record<string, unknown> } };
      receipt.record.record.conforms_to = 'something else';
      await expect(verifySignedReceipt(JSON.stringify(receipt), jwks)).resolves.toMatchObject({ ok: false, failure: 'schema_invalid' });
    });

    it('jwks invalid', async () => {
      const { text } = await signedText();
      await expect(verifySignedReceipt(text, '[]')).resolves.toMatchObject({ ok: false, failure: 'jwks_invalid' });
    });
  });
});
