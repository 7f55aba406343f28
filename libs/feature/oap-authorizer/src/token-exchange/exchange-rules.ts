import type { ScopeBounds } from '../authorities/bounds';
import { matchesName } from '../grants/checks/cascade-step';

/** Deepest `act` chain an exchanged token may carry (RFC 8693 §4.1): the agent plus three prior actors. */
export const MAX_ACT_DEPTH = 4;

/** Longest life of an exchanged agent token, seconds (never longer than its subject). */
export const MAX_AGENT_TOKEN_TTL_SECONDS = 3_600;

/** One actor of an RFC 8693 `act` claim, innermost last. */
export interface ActClaim {
  sub: string;
  act?: ActClaim;
}

/**
 * The scope of an exchanged token: every requested scope (all of the subject's when none is
 * requested) that the subject holds exactly AND the authority allows (and does not deny). A scope
 * the subject does not hold literally is never issued, so the result is always a subset of the
 * subject's scope and of the authority's bounds: wildcards of the bounds only narrow, and a
 * wildcard is never issued.
 */
export function exchangeScope(input: {
  requested: readonly string[] | undefined;
  subject: readonly string[];
  bounds: ScopeBounds | undefined;
}): string[] {
  const { bounds } = input;
  if (!bounds) return [];
  const subject = new Set(input.subject);
  const wanted = input.requested ?? input.subject;
  const issued: string[] = [];
  for (const scope of new Set(wanted)) {
    // A wildcard is a pattern of the bounds, never a scope a token carries.
    if (scope.includes('*') || !subject.has(scope)) continue;
    if (bounds.denied?.some((pattern) => matchesName(pattern, scope))) continue;
    if (!bounds.unrestricted && !bounds.allowed?.some((pattern) => matchesName(pattern, scope))) continue;
    issued.push(scope);
  }
  return issued.sort();
}

/** The exchanged token's expiry: the earliest of the subject's, the authority's and now + the ceiling. */
export function exchangeExpiry(input: { now: Date; subjectExpiresAt: Date; authorityValidUntil: Date }): Date {
  const ceiling = input.now.getTime() + MAX_AGENT_TOKEN_TTL_SECONDS * 1000;
  return new Date(Math.min(ceiling, input.subjectExpiresAt.getTime(), input.authorityValidUntil.getTime()));
}

/** Depth of an `act` chain (0 when absent). */
export function actDepth(act: ActClaim | undefined): number {
  let depth = 0;
  for (let current = act; current; current = current.act) depth += 1;
  return depth;
}

/**
 * The `act` claim of the exchanged token: the agent acting, over whatever chain the subject
 * already carried. Null when the chain would be deeper than {@link MAX_ACT_DEPTH}.
 */
export function actChainOf(agentId: string, prior: ActClaim | undefined): ActClaim | null {
  const chain: ActClaim = prior ? { sub: agentId, act: prior } : { sub: agentId };
  return actDepth(chain) > MAX_ACT_DEPTH ? null : chain;
}
