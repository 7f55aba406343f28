import { authorityOf, deny, pass, type CascadeStep } from './cascade-step';
import { delegationChainViolation } from './delegation-chain';

/**
 * Step 14, continuation chain depth: a delegation chain must be valid (`delegation_chain_invalid`:
 * chronology, audience chaining, scope reduction) and no deeper than
 * `oap_sequence_bounds.max_continuation_depth`. A request without a chain has depth 0.
 */
export const step14ContinuationDepth: CascadeStep = {
  step: 14,
  name: 'continuation_depth',
  category: 'trajectory_denied',
  bounds: ['oap_sequence_bounds'],
  check(context) {
    const chain = context.request.delegationChain;
    if (chain.length === 0) return pass;
    const violation = delegationChainViolation(chain, context.request.agentId, context.request.scopes, context.now);
    if (violation) return deny('delegation_chain_invalid', `Delegation chain invalid: ${violation}`);
    const bounds = authorityOf(context).bounds.oap_sequence_bounds;
    if (bounds?.unrestricted) return pass;
    if (bounds?.max_continuation_depth === undefined) return deny('continuation_depth_not_configured', 'The authority configures no continuation depth');
    if (chain.length > bounds.max_continuation_depth) return deny('continuation_depth_exceeded', `At most ${bounds.max_continuation_depth} delegation hops`);
    return pass;
  },
};
