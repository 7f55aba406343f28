import type { Agent } from '../../agents/agent';
import type { AgentMetadata } from '../../agents/agent-metadata';
import type { Authority } from '../../authorities/authority';
import type { BoundKey } from '../../authorities/bound-shape';

/**
 * Denial categories of the spec's cascade table. Steps 6 and 12 are reserved by the spec under the
 * names `action_not_prohibited` and `max_actions`; their denials carry those names as category.
 */
export type DenialCategory = 'authorization_denied' | 'action_not_prohibited' | 'intent_denied' | 'max_actions' | 'trajectory_denied';

/** One hop of a multi-hop delegation chain (spec, Delegation chain hop). */
export interface DelegationHop {
  iss: string;
  sub: string;
  aud: string;
  /** RFC 3339. */
  delegated_at: string;
  /** Space-separated scopes delegated by this hop. */
  scope: string;
  purpose: string;
  jti: string;
}

/** A grant request after the API edge (steps 1–2 passed): shape valid, caller authenticated. */
export interface GrantRequest {
  applicationId: string;
  agentId: string;
  /** RFC 7638 thumbprint of the agent's DPoP key, proven by the request's own DPoP proof. */
  dpopJkt: string;
  scopes: string[];
  actions: string[];
  validUntil: Date;
  value?: { amount: string; currency: string };
  purpose?: string;
  jurisdiction?: string;
  delegationChain: DelegationHop[];
  metadata?: AgentMetadata;
}

/** What was already granted under the authority, read under its row lock. */
export interface GrantHistory {
  /** Grants ever allowed under the authority. */
  total: number;
  /** Grants allowed in the rolling last minute. */
  lastMinute: number;
  /** Grants allowed in the current UTC calendar minute, hour and day. */
  buckets: Record<'minute' | 'hour' | 'day', number>;
  /** Exact decimal sum of allowed amounts in the authority's value currency. */
  aggregate: string;
  /**
   * Exact decimal sum of amounts allowed in the authority's value currency since the start of the
   * current UTC calendar month ('0' unless the bounds hold `value_bounds.per_month`).
   */
  month: string;
  /** Actions of the most recent grants, newest first (one entry per grant, its first action). */
  recentActions: string[];
  /** Every action ever granted under the authority. */
  grantedActions: ReadonlySet<string>;
}

/** Everything a step may read; steps are pure functions of it. */
export interface CascadeContext {
  now: Date;
  request: GrantRequest;
  /** Undefined when no authority covers the agent (step 3 denies). */
  authority: Authority | undefined;
  agent: Agent;
  /** SHA-256 hex of the agent's current capability manifest, null when none. */
  currentManifestSha256: string | null;
  history: GrantHistory;
}

/** A step's verdict, with one of the step's own reason codes. `escalate` is only returned by step 10. */
export type StepResult<Reason extends string = string> =
  { outcome: 'pass' } | { outcome: 'deny'; reason: Reason; message: string } | { outcome: 'escalate'; reason: Reason };

/** One step of the 15-step cascade. */
export interface CascadeStep<Reason extends string = string> {
  step: number;
  name: string;
  category: DenialCategory;
  /**
   * Every reason code the step answers with (`reason_code` of the denial, published with the
   * step). Its check cannot return another: that is a type error.
   */
  reasons: readonly Reason[];
  /** The bounds the step enforces: one stored in a shape it cannot enforce denies here (fail closed). */
  bounds?: readonly BoundKey[];
  check(context: CascadeContext): StepResult<Reason>;
}

/**
 * Declares a step: its reason codes are inferred from `reasons` only, so a check returning a code
 * the step does not declare does not compile.
 */
export function cascadeStep<const Reason extends string>(
  step: Omit<CascadeStep<Reason>, 'check'> & { check(context: CascadeContext): StepResult<NoInfer<Reason>> },
): CascadeStep<Reason> {
  return step;
}

/** Reason codes of a step. */
export type ReasonOf<Step> = Step extends CascadeStep<infer Reason> ? Reason : never;

/** Shorthands for step implementations. */
export const pass = { outcome: 'pass' } as const satisfies StepResult<never>;
export function deny<const Reason extends string>(reason: Reason, message: string): StepResult<Reason> {
  return { outcome: 'deny', reason, message };
}

/** The authority a step needs; step 3 guarantees it exists before any later step runs. */
export function authorityOf(context: CascadeContext): Authority {
  if (!context.authority) throw new Error('cascade step ran without an authority; step 3 must run first');
  return context.authority;
}

/** True when `name` matches `pattern`, exactly or as `<prefix>:*`. */
export function matchesName(pattern: string, name: string): boolean {
  return pattern === name || (pattern.endsWith(':*') && name.startsWith(pattern.slice(0, -1)));
}
