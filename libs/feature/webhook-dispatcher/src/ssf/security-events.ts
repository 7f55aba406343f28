import { timestampDate } from '@bufbuild/protobuf/wkt';
import { decodeEvent, type PersonalDataSeal } from '@svc/contracts';

/** CAEP 1.0 event types this transmitter emits. */
export const CAEP_SESSION_REVOKED = 'https://schemas.openid.net/secevent/caep/event-type/session-revoked';
export const CAEP_TOKEN_CLAIMS_CHANGE = 'https://schemas.openid.net/secevent/caep/event-type/token-claims-change';
/** SSF 1.0 §8.1.4: the event a receiver asks for through the verification endpoint. */
export const SSF_VERIFICATION = 'https://schemas.openid.net/secevent/ssf/event-type/verification';
/** SSF 1.0 §8.1.5: the transmitter changed a stream's status. */
export const SSF_STREAM_UPDATED = 'https://schemas.openid.net/secevent/ssf/event-type/stream-updated';

/** Event types a receiver may request (`events_supported`); verification is always delivered. */
export const SSF_EVENTS_SUPPORTED = [CAEP_SESSION_REVOKED, CAEP_TOKEN_CLAIMS_CHANGE] as const;

/**
 * Bus events that become security events (see the README's mapping table). Each is a revocation:
 * nothing is pushed for issuance.
 */
export const SSF_SOURCE_EVENTS = ['grant.revoked', 'authority.revoked', 'delegation.revoked', 'oauth.token_revoked'] as const;
export type SsfSourceEvent = (typeof SSF_SOURCE_EVENTS)[number];

/** An RFC 9493 subject identifier, or the SSF `complex` subject made of several. */
export type SubjectIdentifier =
  | { format: 'opaque'; id: string }
  | { format: 'iss_sub'; iss: string; sub: string }
  | { format: 'complex'; user?: SubjectIdentifier; session?: SubjectIdentifier; tenant?: SubjectIdentifier };

/** What one revocation says, before it is addressed to a stream and signed. */
export interface SecurityEvent {
  /** The bus event's id: the SET's `jti` (with the stream's id, so every stream's SET is unique) and the inbox key. */
  sourceEventId: string;
  applicationId: string;
  /** The CAEP event type URI: the only member of the SET's `events`. */
  type: (typeof SSF_EVENTS_SUPPORTED)[number];
  subject: SubjectIdentifier;
  /** The event's own members (CAEP: `event_timestamp`, and `claims` for a claims change). */
  payload: Record<string, unknown>;
}

function seconds(iso: string | undefined, fallback: Date): number {
  const parsed = iso ? Date.parse(iso) : Number.NaN;
  return Math.floor((Number.isNaN(parsed) ? fallback.getTime() : parsed) / 1000);
}

/**
 * The security event of a bus event, or undefined when it yields none (no application to deliver
 * to, an OAuth token revocation that is not a whole grant's). `issuer` is the region's public base
 * URL, the `iss` of the person subjects. Throws when the payload does not decode.
 *
 * Mapping (CAEP 1.0):
 * - `grant.revoked` → session-revoked, subject `opaque` = the grant id (its agent token dies with it);
 * - `authority.revoked` → token-claims-change, subject `opaque` = the authority id, claims
 *   `{oap_authority_status: "revoked"}` (tokens issued under it no longer hold);
 * - `delegation.revoked` → session-revoked, `complex` subject: `user` the delegate (`iss_sub`),
 *   `session` the delegation grant id;
 * - `oauth.token_revoked` of a whole OAuth grant → session-revoked, `complex` subject: `user` the
 *   person (`iss_sub`, when there is one), `session` the provider's grant id. A single token's
 *   destruction (a rotated refresh token, a consumed code) is not a revocation of the session.
 */
export function securityEventOf(
  eventId: string,
  eventType: string,
  data: Uint8Array,
  issuer: string,
  personalData?: PersonalDataSeal,
): SecurityEvent | undefined {
  switch (eventType as SsfSourceEvent) {
    case 'grant.revoked': {
      const event = decodeEvent('grant.revoked', data, personalData);
      const meta = event.meta;
      if (!meta?.applicationId || !event.grantId) return undefined;
      const at = meta.occurredAt ? timestampDate(meta.occurredAt) : new Date(0);
      return {
        sourceEventId: meta.eventId || eventId,
        applicationId: meta.applicationId,
        type: CAEP_SESSION_REVOKED,
        subject: { format: 'opaque', id: event.grantId },
        payload: { event_timestamp: seconds(event.revokedAt, at), initiating_entity: 'admin' },
      };
    }
    case 'authority.revoked': {
      const event = decodeEvent('authority.revoked', data, personalData);
      const meta = event.meta;
      if (!meta?.applicationId || !event.authorityId) return undefined;
      const at = meta.occurredAt ? timestampDate(meta.occurredAt) : new Date(0);
      return {
        sourceEventId: meta.eventId || eventId,
        applicationId: meta.applicationId,
        type: CAEP_TOKEN_CLAIMS_CHANGE,
        subject: { format: 'opaque', id: event.authorityId },
        payload: { event_timestamp: seconds(undefined, at), claims: { oap_authority_status: 'revoked', oap_agent_id: event.agentId } },
      };
    }
    case 'delegation.revoked': {
      const event = decodeEvent('delegation.revoked', data, personalData);
      const meta = event.meta;
      if (!meta?.applicationId || !event.delegationGrantId) return undefined;
      const at = meta.occurredAt ? timestampDate(meta.occurredAt) : new Date(0);
      return {
        sourceEventId: meta.eventId || eventId,
        applicationId: meta.applicationId,
        type: CAEP_SESSION_REVOKED,
        subject: {
          format: 'complex',
          user: { format: 'iss_sub', iss: issuer, sub: event.delegateId },
          session: { format: 'opaque', id: event.delegationGrantId },
        },
        payload: { event_timestamp: seconds(undefined, at), initiating_entity: 'user' },
      };
    }
    case 'oauth.token_revoked': {
      const event = decodeEvent('oauth.token_revoked', data, personalData);
      const meta = event.meta;
      if (!meta?.applicationId || event.tokenKind !== 'grant' || !event.grantId) return undefined;
      const at = meta.occurredAt ? timestampDate(meta.occurredAt) : new Date(0);
      return {
        sourceEventId: meta.eventId || eventId,
        applicationId: meta.applicationId,
        type: CAEP_SESSION_REVOKED,
        subject: {
          format: 'complex',
          ...(event.personId ? { user: { format: 'iss_sub' as const, iss: issuer, sub: event.personId } } : {}),
          session: { format: 'opaque', id: event.grantId },
        },
        payload: { event_timestamp: seconds(undefined, at), initiating_entity: 'user' },
      };
    }
    default:
      return undefined;
  }
}
