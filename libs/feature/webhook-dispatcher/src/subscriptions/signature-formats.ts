/**
 * Signature header sets a subscription's deliveries carry. `svc` (the spec's `X-Svc-*` headers) is
 * always sent; `standard_webhooks` adds `webhook-id`, `webhook-timestamp` and `webhook-signature`
 * (https://www.standardwebhooks.com), so receivers can verify with off-the-shelf libraries.
 */
export const SIGNATURE_FORMATS = ['svc', 'standard_webhooks'] as const;

export type SignatureFormat = (typeof SIGNATURE_FORMATS)[number];

/** Formats of a subscription that did not choose: the spec's headers only. */
export const DEFAULT_SIGNATURE_FORMATS: readonly SignatureFormat[] = ['svc'];

/** The chosen formats, de-duplicated in the canonical order. */
export function normalizeSignatureFormats(formats: readonly string[]): SignatureFormat[] {
  return SIGNATURE_FORMATS.filter((format) => formats.includes(format));
}
