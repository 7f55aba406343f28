import type { EgressEnvironment } from '@svc/egress';
import { SSF_EVENTS_SUPPORTED } from './security-events';

/** RFC 8935 push delivery, the one method this transmitter offers. */
export const PUSH_DELIVERY_METHOD = 'urn:ietf:rfc:8935';

/** SSF 1.0 §8.1.2 stream states: `paused` holds events until enabled; `disabled` drops them. */
export const STREAM_STATUSES = ['enabled', 'paused', 'disabled'] as const;
export type StreamStatus = (typeof STREAM_STATUSES)[number];

/** A receiver's event stream (SSF 1.0 §8.1.1), owned by one application. */
export interface SsfStream {
  id: string;
  applicationId: string;
  environment: EgressEnvironment;
  audience: string[];
  eventsRequested: string[];
  endpointUrl: string;
  /** The `Authorization` header value the receiver asked to be sent, encrypted (aad = stream id); never shown back. */
  authorizationHeaderEnc: Buffer | null;
  description: string | null;
  status: StreamStatus;
  statusReason: string | null;
  createdAt: Date;
  updatedAt: Date;
}

/** `events_delivered`: the requested types this transmitter supports. */
export function eventsDelivered(stream: Pick<SsfStream, 'eventsRequested'>): string[] {
  return stream.eventsRequested.filter((type) => (SSF_EVENTS_SUPPORTED as readonly string[]).includes(type));
}

/** The stream configuration as SSF 1.0 §8.1.1 shapes it (the authorization header is never returned). */
export function streamView(stream: SsfStream, issuer: string): Record<string, unknown> {
  return {
    stream_id: stream.id,
    iss: issuer,
    aud: stream.audience.length === 1 ? stream.audience[0] : stream.audience,
    delivery: { method: PUSH_DELIVERY_METHOD, endpoint_url: stream.endpointUrl },
    events_supported: [...SSF_EVENTS_SUPPORTED],
    events_requested: stream.eventsRequested,
    events_delivered: eventsDelivered(stream),
    min_verification_interval: MIN_VERIFICATION_INTERVAL_SEC,
    ...(stream.description !== null ? { description: stream.description } : {}),
  };
}

/** Seconds a receiver waits between verification requests (SSF `min_verification_interval`). */
export const MIN_VERIFICATION_INTERVAL_SEC = 0;
