/**
 * Closed vocabularies of the consent record that several services write and the published receipt
 * schema (`svc-cr/2.13`) enumerates; defined once so a record can always be rendered as a receipt.
 */

/** `collection_channel`: where and how a consent was captured (spec, Durable receipt schema). */
export const COLLECTION_CHANNELS = [
  'hosted',
  'embedded',
  'embedded_field',
  'embedded_field_browser',
  'form_capture',
  'form_capture_browser',
  'form_platform_webhook',
  'controller_attested',
  'imported',
] as const;
export type CollectionChannel = (typeof COLLECTION_CHANNELS)[number];

/**
 * `event_channel`: where a withdrawal or objection was made. The spec lists the meanings; these
 * identifiers are ours: the person's own records, the link in their email, the link in their
 * receipt, the organisation's mailing tool, a newer record from the organisation's form, the
 * organisation or its systems, end of term, the platform's subject sweep, unspecified.
 */
export const EVENT_CHANNELS = [
  'own_records',
  'email_link',
  'receipt_link',
  'mailing_tool',
  'newer_record',
  'organisation',
  'end_of_term',
  'subject_sweep',
  'unspecified',
] as const;
export type EventChannel = (typeof EVENT_CHANNELS)[number];
