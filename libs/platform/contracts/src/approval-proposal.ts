/**
 * What a person is asked to approve when an agent's grant request escalates: written by
 * oap-authorizer (the producer, `ApprovalRequested.proposal_json`), shown by decision-gateway's
 * hosted approval page (the consumer). One type for both, and one parser the page trusts, so a
 * field the producer renames or drops makes the page refuse the proposal (and the tests fail)
 * instead of silently showing nothing.
 */

/** The escalation bound of the authority that made the request need approval. */
export type EscalationTrigger =
  /** `escalation_bounds.always`: every request is approved by a person. */
  | { bound: 'always' }
  /** `escalation_bounds.amount_over`: the requested amount is above `limit` (same currency as the request). */
  | { bound: 'amount_over'; limit: string; amount: string; currency: string }
  /** `escalation_bounds.actions`: these requested actions are listed as needing approval. */
  | { bound: 'actions'; matched: string[] }
  /** `escalation_bounds.scopes`: these requested scopes are listed as needing approval. */
  | { bound: 'scopes'; matched: string[] };

export const ESCALATION_TRIGGER_BOUNDS = ['always', 'amount_over', 'actions', 'scopes'] as const satisfies ReadonlyArray<
  EscalationTrigger['bound']
>;

/** The escalated grant request, every detail a person needs to decide. */
export interface ApprovalProposal {
  object: 'approval_proposal';
  escalation_id: string;
  agent: {
    id: string;
    /** The agent's registered name. */
    name: string;
    /** Self-reported provider and model (`agent_metadata`), null when not reported. */
    provider: string | null;
    model: string | null;
  };
  /** Actions the agent asks to perform. */
  actions: string[];
  /** Scopes the agent asks for. */
  scope: string[];
  /** Amount and currency of the action, null when the request carries no value. */
  value: { amount: string; currency: string } | null;
  /** Who and what the action concerns. */
  context: {
    purpose: string | null;
    jurisdiction: string | null;
    /** Audience of the last delegation hop: the party the agent acts towards. */
    counterparty: string | null;
    /** The person the agent acts for (first delegation hop's subject, else the self-reported delegator). */
    on_behalf_of: string | null;
  };
  /** Why approval is needed: every escalation bound the request hit (at least one). */
  triggers: EscalationTrigger[];
  /** Until when the grant would be valid if approved (RFC 3339). */
  grant_valid_until: string;
  /** The approval deadline (RFC 3339): past it the request expires unanswered. */
  deadline: string;
}

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);
const isString = (v: unknown): v is string => typeof v === 'string';
const isStringOrNull = (v: unknown): v is string | null => v === null || typeof v === 'string';
const isStringArray = (v: unknown): v is string[] => Array.isArray(v) && v.every(isString);
const isTime = (v: unknown): v is string => isString(v) && !Number.isNaN(Date.parse(v));

/** Exactly these keys: an added, renamed or missing field is drift, not data to ignore. */
function hasExactly(value: Json, keys: readonly string[]): boolean {
  const own = Object.keys(value);
  return own.length === keys.length && keys.every((k) => Object.prototype.hasOwnProperty.call(value, k));
}

function isTrigger(v: unknown): v is EscalationTrigger {
  if (!isObject(v)) return false;
  switch (v.bound) {
    case 'always':
      return hasExactly(v, ['bound']);
    case 'amount_over':
      return hasExactly(v, ['bound', 'limit', 'amount', 'currency']) && isString(v.limit) && isString(v.amount) && isString(v.currency);
    case 'actions':
    case 'scopes':
      return hasExactly(v, ['bound', 'matched']) && isStringArray(v.matched) && v.matched.length > 0;
    default:
      return false;
  }
}

/** The proposal when `value` has exactly the contract's shape, else null. */
export function parseApprovalProposal(value: unknown): ApprovalProposal | null {
  if (!isObject(value)) return null;
  if (
    !hasExactly(value, [
      'object',
      'escalation_id',
      'agent',
      'actions',
      'scope',
      'value',
      'context',
      'triggers',
      'grant_valid_until',
      'deadline',
    ])
  )
    return null;
  const { agent, context, value: amount, triggers } = value;
  const ok =
    value.object === 'approval_proposal' &&
    isString(value.escalation_id) &&
    isObject(agent) &&
    hasExactly(agent, ['id', 'name', 'provider', 'model']) &&
    isString(agent.id) &&
    isString(agent.name) &&
    isStringOrNull(agent.provider) &&
    isStringOrNull(agent.model) &&
    isStringArray(value.actions) &&
    isStringArray(value.scope) &&
    (amount === null ||
      (isObject(amount) && hasExactly(amount, ['amount', 'currency']) && isString(amount.amount) && isString(amount.currency))) &&
    isObject(context) &&
    hasExactly(context, ['purpose', 'jurisdiction', 'counterparty', 'on_behalf_of']) &&
    isStringOrNull(context.purpose) &&
    isStringOrNull(context.jurisdiction) &&
    isStringOrNull(context.counterparty) &&
    isStringOrNull(context.on_behalf_of) &&
    Array.isArray(triggers) &&
    triggers.length > 0 &&
    triggers.every(isTrigger) &&
    isTime(value.grant_valid_until) &&
    isTime(value.deadline);
  return ok ? (value as unknown as ApprovalProposal) : null;
}
