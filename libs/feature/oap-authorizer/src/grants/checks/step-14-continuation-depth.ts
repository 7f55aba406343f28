import { authorityOf, deny, pass, cascadeStep } from './cascade-step';
import { delegationChainViolation } from './delegation-chain';

/**
 * The most delegation hops a request may carry under `oap_sequence_bounds.unrestricted` without a
 * `max_continuation_depth`: the deepest limit an authority can configure. An opt-out is never
 * unlimited depth.
 */
export const DEFAULT_MAX_CONTINUATION_DEPTH = 16;

/**
 * Step 14, continuation chain depth: a delegation chain must be valid (`delegation_chain_invalid`:
 * chronology, audience chaining, scope reduction) and no deeper than
 * `oap_sequence_bounds.max_continuation_depth`. A request without a chain has depth 0. Without a
 * configured depth a chain is denied, unless the sequence bounds are `unrestricted`, which allows
 * {@link DEFAULT_MAX_CONTINUATION_DEPTH} hops; a configured depth applies even when unrestricted.
 */
export const step14ContinuationDepth = cascadeStep({
  step: 14,
  name: 'continuation_depth',
  category: 'trajectory_denied',
  reasons: ['delegation_chain_invalid', 'continuation_depth_not_configured', 'continuation_depth_exceeded'],
  bounds: ['oap_sequence_bounds'],
  check(context) {
    const chain = context.request.delegationChain;
    if (chain.length === 0) return pass;
    const violation = delegationChainViolation(chain, context.request.agentId, context.request.scopes, context.now);
    if (violation) return deny('delegation_chain_invalid', `Delegation chain invalid: ${violation}`);
    const bounds = authorityOf(context).bounds.oap_sequence_bounds;
    const limit = bounds?.max_continuation_depth ?? (bounds?.unrestricted ? DEFAULT_MAX_CONTINUATION_DEPTH : undefined);
    if (limit === undefined) return deny('continuation_depth_not_configured', 'The authority configures no continuation depth');
    if (chain.length > limit) return deny('continuation_depth_exceeded', `At most ${limit} delegation hops`);
    return pass;
  },
});
