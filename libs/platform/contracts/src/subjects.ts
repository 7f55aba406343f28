import type { DescMessage } from '@bufbuild/protobuf';
import { AllowedOriginAddedSchema, ApiTokenChangedSchema, ApplicationCreatedSchema, ApplicationUpdatedSchema } from './gen/svc/events/v1/connect_pb';
import { SigningKeyRotatedSchema } from './gen/svc/events/v1/keys_pb';
import { GetApplicationReplySchema, GetApplicationRequestSchema } from './gen/svc/rpc/v1/applications_pb';
import { ResolveCredentialReplySchema, ResolveCredentialRequestSchema } from './gen/svc/rpc/v1/credentials_pb';

/**
 * Every bus event type, mapped to its protobuf message and schema version. The event type is the
 * subject suffix: `<prefix>.<region>.evt.<event type>`.
 */
export const EVENTS = {
  'application.created': { schema: ApplicationCreatedSchema, version: 1 },
  'application.updated': { schema: ApplicationUpdatedSchema, version: 1 },
  'application.allowed_origin_added': { schema: AllowedOriginAddedSchema, version: 1 },
  'application.api_token_changed': { schema: ApiTokenChangedSchema, version: 1 },
  'keys.signing_key_rotated': { schema: SigningKeyRotatedSchema, version: 1 },
} as const satisfies Record<string, { schema: DescMessage; version: number }>;

export type EventType = keyof typeof EVENTS;

/**
 * Every request/reply method, with its request and reply messages. Subject:
 * `<prefix>.<region>.rpc.<method>`; these travel over core NATS, never stored.
 */
export const RPC_METHODS = {
  'gateway.resolve_credential': { request: ResolveCredentialRequestSchema, reply: ResolveCredentialReplySchema },
  'gateway.get_application': { request: GetApplicationRequestSchema, reply: GetApplicationReplySchema },
} as const satisfies Record<string, { request: DescMessage; reply: DescMessage }>;

export type RpcMethod = keyof typeof RPC_METHODS;

/** Subject of an event in a region. */
export function eventSubject(prefix: string, region: string, type: EventType | string): string {
  return `${prefix}.${region}.evt.${type}`;
}

/** Wildcard of all events of a region, the subject filter of the region's stream. */
export function regionEventWildcard(prefix: string, region: string): string {
  return `${prefix}.${region}.evt.>`;
}

/** Subject of a request/reply method in a region. */
export function rpcSubject(prefix: string, region: string, method: RpcMethod): string {
  return `${prefix}.${region}.rpc.${method}`;
}

/** JetStream stream holding a region's events. */
export function regionStreamName(prefix: string, region: string): string {
  return `${prefix}_${region}_events`.toUpperCase();
}
