import { authorityOf, deny, matchesName, pass, cascadeStep } from './cascade-step';

/** Step 4, scope allowed: every requested scope is allowed and none denied by `scope_bounds`. */
export const step04ScopeAllowed = cascadeStep({
  step: 4,
  name: 'scope_allowed',
  category: 'authorization_denied',
  reasons: ['scope_bounds_not_configured', 'scope_denied', 'scope_not_allowed'],
  bounds: ['scope_bounds'],
  check(context) {
    const bounds = authorityOf(context).bounds.scope_bounds;
    if (!bounds) return deny('scope_bounds_not_configured', 'The authority configures no scope bounds');
    for (const scope of context.request.scopes) {
      if (bounds.denied?.some((p) => matchesName(p, scope))) return deny('scope_denied', `Scope ${scope} is denied`);
      if (!bounds.unrestricted && !bounds.allowed?.some((p) => matchesName(p, scope)))
        return deny('scope_not_allowed', `Scope ${scope} is not allowed`);
    }
    return pass;
  },
});
