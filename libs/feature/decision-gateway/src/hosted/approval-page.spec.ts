import type { ApprovalProposal } from '@svc/contracts';
import type { DecisionSession } from '../decisions/decision';
import { renderDecisionPage, type PageModel } from './render-page';

const proposal: ApprovalProposal = {
  object: 'approval_proposal',
  escalation_id: 'esc_us_aaaaaaaaaaaaaaaaaaaa',
  agent: { id: 'agent_us_aaaaaaaaaaaaaaaaaaaa', name: 'Treasury <bot>', provider: 'Acme AI', model: null },
  actions: ['payments:transfer', 'payments:quote'],
  scope: ['payments:write'],
  value: { amount: '2500.00', currency: 'EUR' },
  context: { purpose: 'supplier invoice 4711', jurisdiction: 'FR', counterparty: 'https://bank.example', on_behalf_of: 'cfo-ada' },
  triggers: [
    { bound: 'always' },
    { bound: 'amount_over', limit: '1000', amount: '2500.00', currency: 'EUR' },
    { bound: 'actions', matched: ['payments:transfer'] },
    { bound: 'scopes', matched: ['payments:write'] },
  ],
  grant_valid_until: '2026-11-23T10:00:00.000Z',
  deadline: '2026-11-22T10:00:00.000Z',
};

function page(sessionProposal: Record<string, unknown> | null): string {
  const session = {
    kind: 'approval',
    status: 'pending',
    triggerType: 'escalation',
    proposal: sessionProposal,
    deadline: new Date(proposal.deadline),
    deliveryMode: 'direct',
    consentPath: null,
  } as unknown as DecisionSession;
  const model: PageModel = {
    session,
    sessionToken: 'A'.repeat(43),
    state: {},
    flow: null,
    locale: 'en',
    applicationName: 'Shop',
    variant: 'full',
    target: 'none',
    parentOrigin: null,
    readyDropCounted: false,
    redirectUri: null,
    serverNow: new Date('2026-11-21T10:00:00.000Z'),
    nonce: 'n',
  };
  return renderDecisionPage(model);
}

/** The text of each element marked `data-detail="<name>"`, tags replaced by `|`. */
function details(html: string, name: string): string[] {
  const pattern = new RegExp(`<([a-z]+)[^>]*data-detail="${name}"[^>]*>([\\s\\S]*?)</\\1>`, 'g');
  return [...html.matchAll(pattern)].map((m) =>
    m[2]!
      .replace(/\s*<[^>]+>\s*/g, '|')
      .replace(/\|+/g, '|')
      .replace(/^\||\|$/g, ''),
  );
}

/** Issue 14 item 13: the person approving an escalated grant sees what they approve. */
describe('the hosted approval page of an escalated grant', () => {
  const html = page(proposal as unknown as Record<string, unknown>);

  it('shows the agent and its provider, actions, scope, amount and currency, context and the deadline', () => {
    expect(details(html, 'agent_name')).toEqual(['Treasury &lt;bot&gt;|agent_us_aaaaaaaaaaaaaaaaaaaa']);
    expect(details(html, 'agent_provider')).toEqual(['Acme AI']);
    expect(details(html, 'agent_model')).toEqual(['not reported']);
    expect(details(html, 'actions')).toEqual(['payments:transfer|payments:quote']);
    expect(details(html, 'scope')).toEqual(['payments:write']);
    expect(details(html, 'value')).toEqual(['2500.00 EUR']);
    expect(['purpose', 'counterparty', 'on_behalf_of', 'jurisdiction'].map((d) => details(html, d))).toEqual([
      ['supplier invoice 4711'],
      ['https://bank.example'],
      ['cfo-ada'],
      ['FR'],
    ]);
    // Rendered in the page's language and named as UTC; the page script rewrites it in the browser's zone.
    expect(details(html, 'grant_valid_until')).toEqual(['November 23, 2026 at 10:00 AM UTC']);
    expect(details(html, 'deadline')[0]).toMatch(/^November 22, 2026 at \d\d:\d\d [AP]M UTC$/);
    expect(html).toContain('datetime="2026-11-23T10:00:00.000Z"');
    expect(html).not.toMatch(/>\d{4}-\d\d-\d\d[ T]\d\d:\d\d/);
  });

  it('says in words which bound triggered the escalation', () => {
    expect(details(html, 'triggers')[0]!.split('|')).toEqual([
      'Every request of this agent needs a person&#39;s approval.',
      'The amount, 2500.00 EUR, is above 1000 EUR: larger amounts need approval.',
      'These actions need approval: payments:transfer.',
      'This access needs approval: payments:write.',
    ]);
    expect(html).not.toMatch(/<p>value<\/p>|<p>escalation<\/p>/);
  });

  it('says no amount when the request has none, and leaves out context it does not have', () => {
    const bare = page({
      ...proposal,
      value: null,
      context: { purpose: null, jurisdiction: null, counterparty: null, on_behalf_of: null },
    } as unknown as Record<string, unknown>);
    expect(details(bare, 'value')).toEqual(['No amount']);
    expect(bare).not.toContain('data-section="context"');
  });

  it('shows a free-form approval minted through the API as before', () => {
    const free = page({ action: 'payments:transfer', bounds: { amount: '2500.00 EUR' } });
    expect(free).toContain('<p>payments:transfer</p>');
    expect(free).toContain('<dt>amount</dt><dd>2500.00 EUR</dd>');
  });
});
