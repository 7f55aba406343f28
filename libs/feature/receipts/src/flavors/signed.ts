import { signDetachedJws, type ActiveSigningKey } from '@svc/crypto';
import { receiptsError } from '../receipts.errors';
import type { ReceiptDocument } from '../record/receipt-document';
import { validateReceiptDocument } from '../schema/published-schema';
import { canonicalReceiptBytes } from './canonical';

/** JWS `typ` of a receipt signature, so a receipt signature cannot be replayed as another token kind. */
export const RECEIPT_JWS_TYP = 'svc-cr+jws';

/**
 * The `signed` flavor: the document plus a detached JWS (RFC 7515 Appendix F, EdDSA) over its
 * RFC 8785 canonical bytes. A verifier re-canonicalises `record`, re-attaches it as the payload
 * and checks the signature against the region key named by `kid` in `/.well-known/jwks.json`.
 */
export interface SignedReceipt {
  record: ReceiptDocument;
  signature: {
    /** `base64url(header)..base64url(signature)`; the payload segment is empty (detached). */
    jws: string;
    /** What the payload is: the canonical form of `record`. */
    canonicalization: 'RFC 8785';
    jwks_uri: string;
  };
}

/**
 * Signs a rendered document. Refuses with `not_signable` (422) a document that does not validate
 * against the published schema: the platform never vouches for a receipt verifiers would reject.
 */
export async function signReceipt(document: ReceiptDocument, key: ActiveSigningKey, jwksUri: string): Promise<SignedReceipt> {
  const check = validateReceiptDocument(document);
  if (!check.valid) {
    throw receiptsError('not_signable', 'This record does not conform to the published schema and cannot be signed', {
      reason: 'schema_invalid',
      problems: check.problems.slice(0, 10),
    });
  }
  const jws = await signDetachedJws(key, canonicalReceiptBytes(document), { typ: RECEIPT_JWS_TYP });
  return { record: document, signature: { jws, canonicalization: 'RFC 8785', jwks_uri: jwksUri } };
}
