import { sha256Hex } from '@svc/crypto';
import type { FlowVersion } from '../flows/flow';
import type { RecordDraft } from '../records/record-write';
import type { CollectionChannel, PurposeDecision, WithdrawalChannel } from '../records/record';

/** A consent decision a person made in a decision session (decision-gateway's consent.granted / consent.denied). */
export interface SessionDecision {
  applicationId: string;
  sessionToken: string;
  flowId: string;
  flowVersion: number;
  /** The session's principal id; empty when the session never named the person. */
  userIdentifier: string;
  /** Purpose keys consented to; empty for a declined session. */
  grantedPurposes: readonly string[];
  decidedAt: Date;
  /** As the session has it: embed | popup | redirect | direct. */
  deliveryMode: string;
  /** How the server bound the person (api_token | principal_assertion | hosted_sign_in), `unbound`, or empty from an older producer. */
  principalBinding: string;
}

/** The receipt's `delivery_mode` vocabulary. */
export type ReceiptDeliveryMode = NonNullable<RecordDraft['deliveryMode']>;

/**
 * Idempotency key of a session's record. Only a digest of the session token is stored: the token
 * itself is the capability that drives the session.
 */
export function sessionIdempotencyKey(sessionToken: string): string {
  return `session:${sha256Hex(sessionToken)}`;
}

/** Channel of a session's record: `embedded` inside the organisation's page, `hosted` on the service's page (popup, redirect, link). */
export function sessionChannel(deliveryMode: string): CollectionChannel {
  return deliveryMode === 'embed' ? 'embedded' : 'hosted';
}

/** The session's delivery mode in the receipt's words (a server-driven `direct` session is reached by its link); undefined when unknown. */
export function receiptDeliveryMode(deliveryMode: string): ReceiptDeliveryMode | undefined {
  switch (deliveryMode) {
    case 'embed':
    case 'popup':
    case 'redirect':
      return deliveryMode;
    case 'direct':
      return 'link';
    default:
      return undefined;
  }
}

/** Where a session revocation was made: the person on the decision page, or the organisation through the API. */
export function revocationChannel(revokedBy: string): WithdrawalChannel {
  if (revokedBy === 'principal') return 'own_records';
  if (revokedBy === 'application') return 'organisation';
  return 'unspecified';
}

/**
 * Per-purpose decisions over every purpose of the flow version the session showed: granted when
 * the event lists it, declined otherwise (a declined session lists none). The session is one
 * affirmative act on the page, so no control was pre-ticked or made a condition.
 */
export function sessionDecisions(flow: FlowVersion, grantedPurposes: readonly string[]): Record<string, PurposeDecision> {
  const granted = new Set(grantedPurposes);
  return Object.fromEntries(
    flow.terms.purposes.map((p) => [
      p.key,
      { decision: granted.has(p.key) ? 'granted' : 'declined', default_checked: false, mandatory: false } satisfies PurposeDecision,
    ]),
  );
}

/** The record a session decision writes through the one record writer. The user identifier must be present. */
export function sessionRecordDraft(decision: SessionDecision, flow: FlowVersion): RecordDraft {
  return {
    applicationId: decision.applicationId,
    flow,
    subject: { email: null, external_id: decision.userIdentifier },
    decisions: sessionDecisions(flow, decision.grantedPurposes),
    capturedAt: decision.decidedAt,
    noticeDigest: null,
    idempotencyKey: sessionIdempotencyKey(decision.sessionToken),
    channel: sessionChannel(decision.deliveryMode),
    sendReceipt: true,
    deliveryMode: receiptDeliveryMode(decision.deliveryMode) ?? null,
  };
}
