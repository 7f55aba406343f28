import type { ApprovalProposal } from '@svc/contracts';
import type { Agent } from '../agents/agent';
import type { Authority } from '../authorities/authority';
import type { GrantRequest } from '../grants/checks/cascade-step';
import { escalationTriggers } from '../grants/checks/step-10-escalation';

/**
 * What the approvers of an escalated grant request are shown on the hosted approval page: the
 * agent and its self-reported provider, the actions, scope, amount and currency, who and what it
 * concerns, every escalation bound it hit, and the deadline (contracts ApprovalProposal).
 */
export function approvalProposalOf(input: {
  escalationId: string;
  request: GrantRequest;
  authority: Authority;
  agent: Pick<Agent, 'id' | 'name' | 'metadata'>;
  deadline: Date;
}): ApprovalProposal {
  const { request, agent } = input;
  const chain = request.delegationChain;
  const metadata = request.metadata ?? agent.metadata ?? undefined;
  return {
    object: 'approval_proposal',
    escalation_id: input.escalationId,
    agent: { id: agent.id, name: agent.name, provider: metadata?.agent_provider ?? null, model: metadata?.agent_model ?? null },
    actions: [...request.actions],
    scope: [...request.scopes],
    value: request.value ? { amount: request.value.amount, currency: request.value.currency } : null,
    context: {
      purpose: request.purpose ?? null,
      jurisdiction: request.jurisdiction ?? null,
      counterparty: chain.at(-1)?.aud ?? null,
      on_behalf_of: chain[0]?.sub ?? metadata?.delegator_sub ?? null,
    },
    triggers: input.authority.bounds.escalation_bounds ? escalationTriggers(input.authority.bounds.escalation_bounds, request) : [],
    grant_valid_until: request.validUntil.toISOString(),
    deadline: input.deadline.toISOString(),
  };
}
