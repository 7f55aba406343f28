import { receiptsError } from '../receipts.errors';

/** Export flavors (spec, What the service does 4). `canonical` is the default. */
export const RECEIPT_FLAVORS = ['canonical', 'dpv', 'signed'] as const;
export type ReceiptFlavor = (typeof RECEIPT_FLAVORS)[number];

/** The flavor named by `?flavor=`; absent means canonical; anything else is `unknown_flavor` (400). */
export function parseFlavor(value: unknown): ReceiptFlavor {
  if (value === undefined) return 'canonical';
  if (typeof value === 'string' && (RECEIPT_FLAVORS as readonly string[]).includes(value)) return value as ReceiptFlavor;
  throw receiptsError('unknown_flavor', 'flavor must be canonical, dpv or signed', { field: 'flavor', allowed: [...RECEIPT_FLAVORS] });
}

/** A rendered flavor: exact response bytes and their media type. */
export interface RenderedFlavor {
  flavor: ReceiptFlavor;
  contentType: string;
  body: Buffer;
}
