import { randomBase32 } from '@svc/ids';

const SUBSCRIPTION_ID = /^whsub_[a-z2-7]{20}$/;

/** A new subscription id: `whsub_` + 20 base32 characters (100 random bits, not enumerable). */
export function newSubscriptionId(): string {
  return `whsub_${randomBase32(20)}`;
}

/** A new delivery id: `whdel_` + 24 base32 characters. */
export function newDeliveryId(): string {
  return `whdel_${randomBase32(24)}`;
}

/** True when `value` has the shape of a subscription id (anything else answers 404 unseen). */
export function isSubscriptionId(value: string): boolean {
  return SUBSCRIPTION_ID.test(value);
}

const STREAM_ID = /^ssfs_[a-z2-7]{20}$/;

/** A new Shared Signals stream id: `ssfs_` + 20 base32 characters (the SSF `stream_id`). */
export function newStreamId(): string {
  return `ssfs_${randomBase32(20)}`;
}

/** A new SET delivery id: `ssfd_` + 24 base32 characters. */
export function newSetDeliveryId(): string {
  return `ssfd_${randomBase32(24)}`;
}

/** True when `value` has the shape of a stream id (anything else answers 404 unseen). */
export function isStreamId(value: string): boolean {
  return STREAM_ID.test(value);
}
