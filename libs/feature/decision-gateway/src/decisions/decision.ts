/** Decision kinds (spec, What the service does 1). */
export const DECISION_KINDS = ['consent', 'approval', 'signature_request'] as const;
export type DecisionKind = (typeof DECISION_KINDS)[number];

/** Delivery modes (spec, What the service does 2); `direct` is for server-driven decisions. */
export const DELIVERY_MODES = ['embed', 'popup', 'redirect', 'direct'] as const;
export type DeliveryMode = (typeof DELIVERY_MODES)[number];

/** The nine consent token / session statuses (spec, States: Consent token / session status). */
export const CONSENT_STATUSES = [
  'pending',
  'authenticating',
  'verifying',
  'reviewing',
  'informed',
  'evidenced',
  'fulfilled',
  'expired',
  'revoked',
] as const;
export type ConsentStatus = (typeof CONSENT_STATUSES)[number];

/** Approval session statuses: pending, then one aggregated outcome (or expired at the deadline). */
export const APPROVAL_STATUSES = ['pending', 'approved', 'denied', 'countered', 'expired'] as const;
export type ApprovalStatus = (typeof APPROVAL_STATUSES)[number];

/** Signing decision statuses: pending, then signed / declined / expired / countered (spec, Signing decision). */
export const SIGNATURE_STATUSES = ['pending', 'signed', 'declined', 'expired', 'countered'] as const;
export type SignatureStatus = (typeof SIGNATURE_STATUSES)[number];

export type SessionStatus = ConsentStatus | ApprovalStatus | SignatureStatus;

/** Approval trigger types (spec, What the service does 9): the bound that escalated. */
export const TRIGGER_TYPES = ['scope', 'action', 'value', 'time', 'escalation', 'reputation'] as const;
export type TriggerType = (typeof TRIGGER_TYPES)[number];

/** Quorum aggregation of approvals and multi-signer signing. */
export const QUORUM_TYPES = ['all', 'majority', 'threshold'] as const;
export type QuorumType = (typeof QUORUM_TYPES)[number];

/** Default time to the deadline per kind, in seconds: consent 15 min, approval 24 h, signature 7 days. */
export const DEFAULT_TTL_SECONDS: Readonly<Record<DecisionKind, number>> = { consent: 900, approval: 86_400, signature_request: 604_800 };
/** Bounds of `ttl_seconds`: 30 s to 30 days. */
export const MIN_TTL_SECONDS = 30;
export const MAX_TTL_SECONDS = 2_592_000;

/** Consent token lifetime (spec, Limits): 5 minutes, single use. */
export const CONSENT_TOKEN_TTL_MS = 5 * 60_000;

/**
 * How the person of a session was bound, always by the server: the application's API token named
 * them at mint (`api_token`), the application's server obtained a single-use principal assertion
 * its page passed on the publishable-key mint (`principal_assertion`), an escalation named the
 * authority's principal (`authority`), or the person signed in on the hosted page
 * (`hosted_sign_in`, see principal-binding.ts). A session without one is unbound: its outcome is
 * delivered but it is nobody's consent.
 */
export const PRINCIPAL_BINDINGS = ['api_token', 'principal_assertion', 'authority', 'hosted_sign_in'] as const;
export type PrincipalBinding = (typeof PRINCIPAL_BINDINGS)[number];

/** Which API family minted a session; tokens are shared between the two (spec, Versioning 3). */
export type CreatedVia = 'decisions' | 'consent_sessions' | 'escalation';

/** A decision session as stored. The session token itself is kept only where a link must be rendered. */
export interface DecisionSession {
  tokenSha256: string;
  /** The `dts_…` token for sessions minted here; null for sessions opened from an escalation event. */
  sessionToken: string | null;
  applicationId: string;
  kind: DecisionKind;
  status: SessionStatus;
  /** granted / declined / expired (consent), approved / denied / countered / expired, signed / declined / countered / expired; null while open. */
  outcome: string | null;
  flowId: string | null;
  flowVersion: number | null;
  consentPath: 'standard' | 'informed' | null;
  purposes: string[];
  deliveryMode: DeliveryMode;
  embedOrigin: string | null;
  principalId: string | null;
  /** How `principalId` was bound; null while (or when) the session is unbound. */
  principalBinding: PrincipalBinding | null;
  triggerType: TriggerType | null;
  reference: string | null;
  quorumType: QuorumType | null;
  quorumRequired: number | null;
  participants: string[];
  proposal: Record<string, unknown> | null;
  counterProposal: Record<string, unknown> | null;
  evidence: Record<string, unknown> | null;
  decisionUrl: string;
  deadline: Date;
  createdVia: CreatedVia;
  exchangeTokenSha256: string | null;
  exchangedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
  completedAt: Date | null;
}

/** True once a session has left its in-flight statuses (fulfilled, an outcome, expired or revoked). */
export function isClosed(session: Pick<DecisionSession, 'completedAt'>): boolean {
  return session.completedAt !== null;
}
