import type { Principal } from '@svc/auth';

/** What governance controls: each is a role (who may) and may need a second approver (four-eyes). */
export const GOVERNED_ACTIONS = ['activate_flows', 'change_modules', 'rotate_keys', 'change_governance'] as const;
export type GovernedAction = (typeof GOVERNED_ACTIONS)[number];

/** Most actors one role names. */
export const MAX_ROLE_ACTORS = 20;

/** An actor: an API token record id (`api_token_…`) or a person (`usr_<region>_…`). */
export const ACTOR_ID = /^(api_token_[a-z2-7]{20}|usr_[a-z]{2,3}_[a-z2-7]{20})$/;

/**
 * An application's governance policy. A role of `null` lets any credential of the application
 * act (the policy of an application that never set one: nothing changes for it until it does).
 */
export interface GovernancePolicy {
  readonly roles: Readonly<Record<GovernedAction, readonly string[] | null>>;
  /** Actions whose every change needs a second, different approver. */
  readonly four_eyes: readonly GovernedAction[];
  readonly version: number;
  readonly updatedAt: Date | null;
  readonly auditEntryId: string | null;
}

/** The policy of an application that never set one. */
export const OPEN_POLICY: GovernancePolicy = {
  roles: { activate_flows: null, change_modules: null, rotate_keys: null, change_governance: null },
  four_eyes: [],
  version: 0,
  updatedAt: null,
  auditEntryId: null,
};

/**
 * Who is acting: the person of a person's access token, else the API or account token record. A publishable
 * key names no one who could be held to a governance decision, so it is never an actor.
 */
export function actorOf(principal: Principal): string | undefined {
  if (principal.kind === 'access_token') return principal.personId;
  if (principal.kind === 'api_token') return principal.credentialId;
  // An account token acts under its own record id, like an API token.
  if (principal.kind === 'account_token') return principal.credentialId;
  return undefined;
}

/** Whether an actor holds a role (a `null` role: every actor of the application). */
export function mayAct(policy: GovernancePolicy, action: GovernedAction, actor: string): boolean {
  const role = policy.roles[action];
  return role === null || role.includes(actor);
}

export const CHANGE_REQUEST_STATUSES = ['pending', 'approved', 'applied', 'rejected', 'expired'] as const;
export type ChangeRequestStatus = (typeof CHANGE_REQUEST_STATUSES)[number];

/** One step of a change request, each recorded in the audit chain. */
export interface ChangeRequestStep {
  readonly step: 'requested' | 'approved' | 'rejected' | 'applied' | 'expired';
  readonly actor_id: string | null;
  readonly at: string;
  readonly audit_entry_id: string;
}

/** A change under four-eyes approval. */
export interface ChangeRequest {
  readonly seq: number;
  readonly id: string;
  readonly applicationId: string;
  readonly action: GovernedAction;
  /** What changes: a regime, a flow id, `api_tokens`, or `policy`. */
  readonly target: string;
  readonly changes: Record<string, unknown>;
  readonly status: ChangeRequestStatus;
  readonly requestedBy: string;
  readonly reason: string | null;
  readonly decidedBy: string | null;
  readonly steps: readonly ChangeRequestStep[];
  readonly createdAt: Date;
  readonly expiresAt: Date;
  readonly decidedAt: Date | null;
  readonly appliedAt: Date | null;
}

/** How long a change request waits for its second approver, and an approval for its use. */
export const CHANGE_REQUEST_TTL_MS = 7 * 86_400_000;
