import type { ApprovalProposal, EscalationTrigger } from '@svc/contracts';
import { timeElement } from './dates';
import { escapeHtml } from './html';
import { fill, type Dictionary } from './i18n';

export { escapeHtml };

/** The escalation bound that made the request need approval, in words. */
export function triggerInWords(trigger: EscalationTrigger, t: Dictionary): string {
  switch (trigger.bound) {
    case 'always':
      return t.trigger_always;
    case 'amount_over':
      return fill(t.trigger_amount_over, { amount: trigger.amount, limit: trigger.limit, currency: trigger.currency });
    case 'actions':
      return fill(t.trigger_actions, { names: trigger.matched.join(', ') });
    case 'scopes':
      return fill(t.trigger_scopes, { names: trigger.matched.join(', ') });
  }
}

function section(id: string, heading: string, body: string): string {
  return `<section aria-labelledby="svc-${id}-h" data-section="${id}"><h2 id="svc-${id}-h">${escapeHtml(heading)}</h2>${body}</section>`;
}

function list(id: string, items: readonly string[]): string {
  return `<ul data-detail="${id}">${items.map((i) => `<li>${escapeHtml(i)}</li>`).join('')}</ul>`;
}

function row(id: string, term: string, value: string | null, t: Dictionary): string {
  return `<dt>${escapeHtml(term)}</dt><dd data-detail="${id}">${escapeHtml(value ?? t.not_reported)}</dd>`;
}

/**
 * The body of the approval page of an escalated grant: every detail of the proposal, so the
 * person knows what they approve. Every value is escaped (it comes from the agent's request).
 */
export function escalatedGrantBody(proposal: ApprovalProposal, t: Dictionary, locale = 'en'): string {
  const { agent, value, context } = proposal;
  const contextRows = [
    context.purpose !== null ? row('purpose', t.purpose, context.purpose, t) : '',
    context.counterparty !== null ? row('counterparty', t.counterparty, context.counterparty, t) : '',
    context.on_behalf_of !== null ? row('on_behalf_of', t.on_behalf_of, context.on_behalf_of, t) : '',
    context.jurisdiction !== null ? row('jurisdiction', t.jurisdiction, context.jurisdiction, t) : '',
  ].join('');
  return [
    section(
      'agent',
      t.agent,
      `<p data-detail="agent_name">${escapeHtml(agent.name)} <code>${escapeHtml(agent.id)}</code></p><dl>${row('agent_provider', t.agent_provider, agent.provider, t)}${row('agent_model', t.agent_model, agent.model, t)}</dl>`,
    ),
    section('actions', t.actions, list('actions', proposal.actions)),
    section('scope', t.scope, list('scope', proposal.scope)),
    section('amount', t.amount, `<p data-detail="value">${escapeHtml(value ? `${value.amount} ${value.currency}` : t.no_amount)}</p>`),
    contextRows ? section('context', t.context, `<dl>${contextRows}</dl>`) : '',
    section(
      'trigger',
      t.trigger,
      list(
        'triggers',
        proposal.triggers.map((trigger) => triggerInWords(trigger, t)),
      ),
    ),
    section('validity', t.grant_valid_until, `<p>${timeElement(proposal.grant_valid_until, locale, 'grant_valid_until')}</p>`),
  ].join('');
}
