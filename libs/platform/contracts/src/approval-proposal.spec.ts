import { parseApprovalProposal, type ApprovalProposal } from './approval-proposal';

const proposal: ApprovalProposal = {
  object: 'approval_proposal',
  escalation_id: 'esc_us_aaaaaaaaaaaaaaaaaaaa',
  agent: { id: 'agent_us_aaaaaaaaaaaaaaaaaaaa', name: 'Treasury bot', provider: 'Acme AI', model: null },
  actions: ['payments:transfer'],
  scope: ['payments:write'],
  value: { amount: '2500.00', currency: 'EUR' },
  context: { purpose: 'invoice', jurisdiction: null, counterparty: null, on_behalf_of: 'cfo-ada' },
  triggers: [{ bound: 'amount_over', limit: '1000', amount: '2500.00', currency: 'EUR' }],
  grant_valid_until: '2026-11-23T10:00:00.000Z',
  deadline: '2026-11-22T10:00:00.000Z',
};

const without = (value: Record<string, unknown>, key: string) => Object.fromEntries(Object.entries(value).filter(([k]) => k !== key));

/** Issue 14 item 13: a proposal that drifted from the contract is refused, never half shown. */
describe('parseApprovalProposal', () => {
  it("accepts the contract's shape", () => {
    expect(parseApprovalProposal(structuredClone(proposal))).toEqual(proposal);
  });

  it.each(Object.keys(proposal))('refuses a proposal without %s, or with it renamed', (key) => {
    const rest = without(proposal as unknown as Record<string, unknown>, key);
    expect(parseApprovalProposal(rest)).toBeNull();
    expect(parseApprovalProposal({ ...rest, [`${key}_v2`]: (proposal as unknown as Record<string, unknown>)[key] })).toBeNull();
  });

  it('refuses the request summary the page used to be given, and malformed nested parts', () => {
    expect(parseApprovalProposal({ scope: ['payments:write'], actions: ['pay'], value: { amount: '1', currency: 'EUR' } })).toBeNull();
    expect(parseApprovalProposal({ ...proposal, agent: { ...proposal.agent, provider: undefined } })).toBeNull();
    expect(parseApprovalProposal({ ...proposal, value: { amount: 2500, currency: 'EUR' } })).toBeNull();
    expect(parseApprovalProposal({ ...proposal, triggers: [] })).toBeNull();
    expect(parseApprovalProposal({ ...proposal, triggers: [{ bound: 'value' }] })).toBeNull();
    expect(parseApprovalProposal({ ...proposal, triggers: [{ bound: 'actions', matched: [] }] })).toBeNull();
    expect(parseApprovalProposal({ ...proposal, deadline: 'tomorrow' })).toBeNull();
    expect(parseApprovalProposal(null)).toBeNull();
    expect(parseApprovalProposal([proposal])).toBeNull();
  });
});
