import { parseApprovalProposal } from '@svc/contracts';
import type { Authority } from '../authorities/authority';
import type { AuthorityBounds } from '../authorities/bounds';
import type { GrantRequest } from '../grants/checks/cascade-step';
import { approvalProposalOf } from './approval-proposal';

const bounds = {
  escalation_bounds: { amount_over: '1000', actions: ['payments:*'], scopes: ['payments:admin'], quorum_type: 'all', approvers: ['ops-1'] },
} as AuthorityBounds;
const authority = { id: 'auth_us_aaaaaaaaaaaaaaaaaaaa', bounds } as Authority;
const agent = {
  id: 'agent_us_aaaaaaaaaaaaaaaaaaaa',
  name: 'Treasury bot',
  metadata: { agent_provider: 'Acme AI', agent_model: 'ledger-2' },
};
const request: GrantRequest = {
  applicationId: 'tp_us_aaaaaaaaaaaaaaaaaaaa',
  agentId: agent.id,
  dpopJkt: 'jkt',
  scopes: ['payments:write'],
  actions: ['payments:transfer'],
  validUntil: new Date('2026-11-23T10:00:00Z'),
  value: { amount: '2500.00', currency: 'EUR' },
  purpose: 'supplier invoice 4711',
  jurisdiction: 'FR',
  delegationChain: [
    {
      iss: 'https://idp.example',
      sub: 'cfo-ada',
      aud: 'https://bank.example',
      delegated_at: '2026-11-20T09:00:00Z',
      scope: 'payments:write',
      purpose: 'invoices',
    } as GrantRequest['delegationChain'][number],
  ],
};
const deadline = new Date('2026-11-22T10:00:00Z');

/** Issue 14 item 13: the producer's proposal is exactly what the approval page accepts, every detail included. */
describe('the approval proposal of an escalated grant', () => {
  const proposal = approvalProposalOf({ escalationId: 'esc_us_aaaaaaaaaaaaaaaaaaaa', request, authority, agent, deadline });

  it('is accepted unchanged by the parser the hosted page uses, after the trip through JSON', () => {
    expect(parseApprovalProposal(JSON.parse(JSON.stringify(proposal)))).toEqual(proposal);
  });

  it('carries the agent and its provider, actions, scope, amount and currency, context, every bound that triggered, and the deadline', () => {
    expect(proposal).toEqual({
      object: 'approval_proposal',
      escalation_id: 'esc_us_aaaaaaaaaaaaaaaaaaaa',
      agent: { id: agent.id, name: 'Treasury bot', provider: 'Acme AI', model: 'ledger-2' },
      actions: ['payments:transfer'],
      scope: ['payments:write'],
      value: { amount: '2500.00', currency: 'EUR' },
      context: { purpose: 'supplier invoice 4711', jurisdiction: 'FR', counterparty: 'https://bank.example', on_behalf_of: 'cfo-ada' },
      triggers: [
        { bound: 'amount_over', limit: '1000', amount: '2500.00', currency: 'EUR' },
        { bound: 'actions', matched: ['payments:transfer'] },
      ],
      grant_valid_until: '2026-11-23T10:00:00.000Z',
      deadline: '2026-11-22T10:00:00.000Z',
    });
  });

  it('says not reported, no amount and no context rather than inventing them', () => {
    const bare = approvalProposalOf({
      escalationId: 'esc_us_bbbbbbbbbbbbbbbbbbbb',
      request: { ...request, value: undefined, purpose: undefined, jurisdiction: undefined, delegationChain: [], metadata: undefined },
      authority: { ...authority, bounds: { escalation_bounds: { always: true, quorum_type: 'all', approvers: ['ops-1'] } } } as Authority,
      agent: { ...agent, metadata: null },
      deadline,
    });
    expect(bare).toMatchObject({
      agent: { provider: null, model: null },
      value: null,
      context: { purpose: null, jurisdiction: null, counterparty: null, on_behalf_of: null },
      triggers: [{ bound: 'always' }],
    });
    expect(parseApprovalProposal(JSON.parse(JSON.stringify(bare)))).toEqual(bare);
  });
});
