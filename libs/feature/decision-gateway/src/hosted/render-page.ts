import { parseApprovalProposal } from '@svc/contracts';
import type { DecisionSession } from '../decisions/decision';
import { escalatedGrantBody, escapeHtml, utc } from './approval-proposal-view';
import { FRAME_SCRIPT } from './frame-script';
import { dictionary, type Dictionary } from './i18n';
import { PAGE_STYLES } from './page-styles';
import type { PostMessageKind } from './postmessage-schemas';

/** Presentation of the flow a consent session is bound to (from `consent_records.get_flow`). */
export interface FlowPresentation {
  title: string;
  description: string;
  locale: string;
  policyUrl: string;
  purposes: Array<{ key: string; label: string; description: string; required: boolean }>;
}

/** Everything one render of a decision page needs; built by the controller. */
export interface PageModel {
  session: DecisionSession;
  sessionToken: string;
  /** The page-state body of GET …/state (allowed_actions included). */
  state: Record<string, unknown>;
  flow: FlowPresentation | null;
  locale: string;
  applicationName: string | null;
  /** `embed` renders the iframe variant (compact, posts to the parent). */
  variant: 'full' | 'embed';
  /** Where messages go: the iframe's parent, the popup's opener, or nobody (direct / redirect). */
  target: 'parent' | 'opener' | 'none';
  /** Checked against the allowed origins; null means messages are dropped and counted. */
  parentOrigin: string | null;
  /** The server already counted the undeliverable svc:ready (the frame will be refused by CSP). */
  readyDropCounted: boolean;
  /** Checked redirect_uri (redirect mode), else null. */
  redirectUri: string | null;
  serverNow: Date;
  nonce: string;
  /** Shown when the session is for a person with an account: their name and a request to confirm (people feature's wording). */
  personNotice?: string | null;
}

export { escapeHtml };

/** JSON for a `<script type="application/json">` block: `<` escaped so no `</script>` can close it. */
function jsonBlock(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}

/** Envelope kind of a decision: signing travels as `approval` (see postmessage-schemas). */
export function envelopeKind(session: Pick<DecisionSession, 'kind'>): PostMessageKind {
  return session.kind === 'consent' ? 'consent' : 'approval';
}

function text(value: unknown): string {
  if (value === null || value === undefined) return '';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function definitionList(value: unknown): string {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return `<p>${escapeHtml(text(value))}</p>`;
  const rows = Object.entries(value as Record<string, unknown>).map(([k, v]) => `<dt>${escapeHtml(k)}</dt><dd>${escapeHtml(text(v))}</dd>`);
  return rows.length ? `<dl>${rows.join('')}</dl>` : '';
}

function consentBody(model: PageModel, t: Dictionary): string {
  const flow = model.flow;
  const purposes = (flow?.purposes ?? []).map(
    (p) =>
      `<li><strong>${escapeHtml(p.label || p.key)}</strong>${p.required ? `<span class="tag">${escapeHtml(t.required)}</span>` : ''}${p.description ? ` — ${escapeHtml(p.description)}` : ''}</li>`,
  );
  const policy = flow?.policyUrl && /^https?:\/\//.test(flow.policyUrl) ? `<p><a href="${escapeHtml(flow.policyUrl)}" rel="noopener noreferrer" target="_blank">${escapeHtml(t.policy)}</a></p>` : '';
  const disclosures =
    model.session.consentPath === 'informed'
      ? `<section aria-labelledby="svc-disclosures-h"><h2 id="svc-disclosures-h">${escapeHtml(t.disclosures)}</h2><p>${escapeHtml(t.disclosures_intro)}</p>${
          flow?.description ? `<p>${escapeHtml(flow.description)}</p>` : ''
        }</section>`
      : flow?.description
        ? `<p>${escapeHtml(flow.description)}</p>`
        : '';
  return `${disclosures}<section aria-labelledby="svc-purposes-h"><h2 id="svc-purposes-h">${escapeHtml(t.purposes)}</h2><ul class="purposes">${purposes.join('')}</ul>${policy}</section>`;
}

/**
 * An escalated grant shows the proposal of the contract (every detail); an approval minted through
 * the API shows its free-form `{ action | actions, bounds }`.
 */
function approvalBody(model: PageModel, t: Dictionary): string {
  const escalated = parseApprovalProposal(model.session.proposal);
  if (escalated) return escalatedGrantBody(escalated, t);
  const proposal = model.session.proposal ?? {};
  const action = proposal['action'] ?? proposal['actions'];
  const bounds = proposal['bounds'];
  const trigger = model.session.triggerType;
  return [
    `<section aria-labelledby="svc-action-h"><h2 id="svc-action-h">${escapeHtml(t.proposed_action)}</h2><p>${escapeHtml(text(action ?? ''))}</p></section>`,
    `<section aria-labelledby="svc-bounds-h"><h2 id="svc-bounds-h">${escapeHtml(t.bounds)}</h2>${definitionList(bounds ?? {})}</section>`,
    `<section aria-labelledby="svc-trigger-h"><h2 id="svc-trigger-h">${escapeHtml(t.trigger)}</h2><p>${escapeHtml(trigger ?? t.trigger_none)}</p></section>`,
  ].join('');
}

function signingBody(model: PageModel, t: Dictionary): string {
  return `<section aria-labelledby="svc-document-h"><h2 id="svc-document-h">${escapeHtml(t.document)}</h2>${definitionList(model.session.proposal ?? {})}</section>`;
}

/** The complete HTML document of a decision page (full or embed). */
export function renderDecisionPage(model: PageModel): string {
  const t = dictionary(model.locale);
  const { session } = model;
  const title =
    session.kind === 'consent' ? model.flow?.title || t.page_title_consent : session.kind === 'approval' ? t.page_title_approval : t.page_title_signature_request;
  const body = session.kind === 'consent' ? consentBody(model, t) : session.kind === 'approval' ? approvalBody(model, t) : signingBody(model, t);
  const config = {
    session_token: model.sessionToken,
    api_base: `/api/v1/decisions/${model.sessionToken}`,
    drop_url: `/decisions/${model.sessionToken}/postmessage_drops`,
    decision_kind: session.kind,
    envelope_kind: envelopeKind(session),
    consent_path: session.consentPath ?? 'standard',
    trigger_type: session.triggerType,
    deadline: session.deadline.toISOString(),
    server_now: model.serverNow.toISOString(),
    state: model.state,
    target: model.target,
    parent_origin: model.parentOrigin,
    ready_drop_counted: model.readyDropCounted,
    redirect_uri: model.redirectUri,
    mode: model.variant === 'embed' ? 'embed' : model.redirectUri ? 'redirect' : model.target === 'opener' ? 'popup' : session.deliveryMode,
    locale: model.locale,
    branding: { name: model.applicationName, logo_url: null },
    strings: t,
  };
  return `<!doctype html>
<html lang="${escapeHtml(model.locale)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(title)}</title>
<style nonce="${model.nonce}">${PAGE_STYLES}</style>
</head>
<body class="${model.variant}">
<main id="svc-main" aria-busy="false">
${model.applicationName ? `<p class="brand">${escapeHtml(model.applicationName)}</p>` : ''}
<h1 id="svc-title" tabindex="-1">${escapeHtml(title)}</h1>
<p class="deadline">${escapeHtml(t.deadline)} <time data-detail="deadline" datetime="${session.deadline.toISOString()}">${escapeHtml(utc(session.deadline.toISOString()))}</time></p>
${model.personNotice ? `<p id="svc-person">${escapeHtml(model.personNotice)}</p>` : ''}
${body}
<h2 id="svc-progress" tabindex="-1"></h2>
<div id="svc-actions" role="group" aria-labelledby="svc-title"></div>
<form id="svc-counter" hidden>
<label for="svc-counter-text">${escapeHtml(t.counter_label)}</label>
<textarea id="svc-counter-text" name="counter" maxlength="2000"></textarea>
<div><button type="submit" class="primary" id="svc-counter-submit">${escapeHtml(t.counter_submit)}</button></div>
</form>
<div id="svc-status" role="status" aria-live="polite">${escapeHtml(t.status_loading)}</div>
</main>
<script type="application/json" id="svc-config">${jsonBlock(config)}</script>
<script nonce="${model.nonce}">${FRAME_SCRIPT}</script>
</body>
</html>`;
}

/** A small localized error page (404 for an unknown token or a draft flow, 400 for a bad redirect_uri). */
export function renderErrorPage(locale: string, nonce: string, heading?: string, message?: string): string {
  const t = dictionary(locale);
  return `<!doctype html>
<html lang="${escapeHtml(locale)}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(heading ?? t.not_found_title)}</title><style nonce="${nonce}">${PAGE_STYLES}</style></head>
<body class="full"><main id="svc-main"><h1>${escapeHtml(heading ?? t.not_found_title)}</h1><p>${escapeHtml(message ?? t.not_found_text)}</p></main></body></html>`;
}
