import { canonicalJson } from '@svc/crypto';
import type { ReceiptDocument } from '../record/receipt-document';

/** The RFC 8785 canonical UTF-8 bytes of a document: what is hashed and what a detached JWS signs. */
export function canonicalReceiptBytes(document: ReceiptDocument): Buffer {
  return Buffer.from(canonicalJson(document), 'utf8');
}
