import { authorityOf, deny, pass, cascadeStep } from './cascade-step';

/**
 * Step 9, reputation threshold: the agent's trust score and vouch count (the Verify surface's
 * snapshot on the agent, kept current by every vouch write) meet `reputation_bounds`.
 */
export const step09Reputation = cascadeStep({
  step: 9,
  name: 'reputation_threshold',
  category: 'intent_denied',
  reasons: ['reputation_bounds_not_configured', 'reputation_below_threshold'],
  bounds: ['reputation_bounds'],
  check(context) {
    const bounds = authorityOf(context).bounds.reputation_bounds;
    if (!bounds) return deny('reputation_bounds_not_configured', 'The authority configures no reputation bounds');
    if (bounds.unrestricted) return pass;
    // The message names the threshold that failed and the value it was compared with.
    if (bounds.min_trust_score !== undefined && context.agent.trustScore < bounds.min_trust_score) {
      return deny(
        'reputation_below_threshold',
        `Trust score ${context.agent.trustScore} is below the minimum (min_trust_score ${bounds.min_trust_score})`,
      );
    }
    if (bounds.min_vouch_count !== undefined && context.agent.vouchCount < bounds.min_vouch_count) {
      return deny(
        'reputation_below_threshold',
        `Vouch count ${context.agent.vouchCount} is below the minimum (min_vouch_count ${bounds.min_vouch_count})`,
      );
    }
    return pass;
  },
});
