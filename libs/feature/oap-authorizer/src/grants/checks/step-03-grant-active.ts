import { deny, pass, cascadeStep } from './cascade-step';

/**
 * Step 3, grant exists and active: an authority covers the agent, is active, inside its validity
 * window and past its cooling-off; the agent is active; the requested `valid_until` lies in the
 * future and within the authority.
 */
export const step03GrantActive = cascadeStep({
  step: 3,
  name: 'grant_active',
  category: 'authorization_denied',
  reasons: [
    'authority_not_found',
    'authority_not_granted',
    'authority_declined',
    'authority_suspended',
    'authority_revoked',
    'agent_suspended',
    'authority_not_yet_valid',
    'authority_cooling_off',
    'authority_expired',
    'grant_validity_in_past',
    'grant_validity_exceeds_authority',
  ],
  check({ authority, agent, request, now }) {
    if (!authority) return deny('authority_not_found', 'No authority covers this agent');
    if (authority.status === 'proposed')
      return deny('authority_not_granted', 'The authority was proposed but the person has not granted it');
    if (authority.status === 'declined') return deny('authority_declined', 'The person declined the authority');
    if (authority.status === 'suspended') return deny('authority_suspended', 'The authority is suspended');
    if (authority.status === 'revoked') return deny('authority_revoked', 'The authority is revoked');
    if (agent.status !== 'active') return deny('agent_suspended', 'The agent is suspended');
    if (now < authority.validFrom) return deny('authority_not_yet_valid', 'The authority is not valid yet');
    if (now.getTime() < authority.validFrom.getTime() + authority.coolingOffSeconds * 1000)
      return deny('authority_cooling_off', 'The authority is in its cooling-off period');
    if (now >= authority.validUntil) return deny('authority_expired', 'The authority has expired');
    if (request.validUntil <= now) return deny('grant_validity_in_past', 'valid_until is not in the future');
    if (request.validUntil > authority.validUntil) return deny('grant_validity_exceeds_authority', 'valid_until is beyond the authority');
    return pass;
  },
});
