import type { DelegationHop } from './cascade-step';

/**
 * Validates a multi-hop delegation chain, first hop first: `delegated_at` chronological (each hop
 * no earlier than the previous one and none in the future), audience chaining (each hop's `aud`
 * is the next hop's `iss`, and the last hop's `sub` is the requesting agent), scope reduction
 * (each hop's scopes a subset of the previous hop's, and the requested scopes a subset of the
 * last hop's). Returns the first violation, or undefined when the chain holds.
 */
export function delegationChainViolation(
  chain: readonly DelegationHop[],
  agentId: string,
  requestedScopes: readonly string[],
  now: Date,
): string | undefined {
  let previous: DelegationHop | undefined;
  for (const [index, hop] of chain.entries()) {
    const at = Date.parse(hop.delegated_at);
    if (Number.isNaN(at) || at > now.getTime()) return `hop ${index}: delegated_at is invalid or in the future`;
    if (previous) {
      if (at < Date.parse(previous.delegated_at)) return `hop ${index}: delegated_at is earlier than the previous hop`;
      if (previous.aud !== hop.iss) return `hop ${index}: iss does not match the previous hop's aud`;
      const allowed = new Set(scopesOf(previous));
      if (!scopesOf(hop).every((s) => allowed.has(s))) return `hop ${index}: scope is not a reduction of the previous hop's`;
    }
    previous = hop;
  }
  if (previous) {
    if (previous.sub !== agentId) return 'last hop: sub is not the requesting agent';
    const allowed = new Set(scopesOf(previous));
    if (!requestedScopes.every((s) => allowed.has(s))) return 'requested scopes exceed the last hop';
  }
  return undefined;
}

function scopesOf(hop: DelegationHop): string[] {
  return hop.scope.split(' ').filter(Boolean);
}
