import { parseApprovalProposal } from '@svc/contracts';
import type { DecisionSession } from '../decisions/decision';
import { escalatedGrantBody, escapeHtml } from './approval-proposal-view';
import { brandPalette } from './brand-colours';
import { DATE_OPTIONS, timeElement } from './dates';
import { FRAME_SCRIPT } from './frame-script';
import { dictionary, fill, textDirection, type Dictionary } from './i18n';
import { brandStyles, PAGE_STYLES } from './page-styles';
import type { PostMessageKind } from './postmessage-schemas';

/** Presentation of the flow a consent session is bound to (from `consent_records.get_flow`). */
export interface FlowPresentation {
  title: string;
  description: string;
  /** BCP 47 tag of the flow's own wording (title, description, purposes). */
  locale: string;
  policyUrl: string;
  purposes: Array<{ key: string; label: string; description: string; required: boolean; mechanism?: string }>;
  /** Checks the standard path runs (identity verification, data collection, bank connection); none: nothing to check. */
  requirements?: string[];
}

/** How the application brands its pages. */
export interface PageBranding {
  name: string | null;
  /** Absolute https URL, already validated when the application set it. */
  logoUrl: string | null;
  /** `#rrggbb`, or null for the neutral look. */
  brandColor: string | null;
}

/** Everything one render of a decision page needs; built by the controller. */
export interface PageModel {
  session: DecisionSession;
  sessionToken: string;
  /** The page-state body of GET …/state (allowed_actions included). */
  state: Record<string, unknown>;
  flow: FlowPresentation | null;
  /** The page's language, negotiated (Accept-Language, then the flow's locale, then en). */
  locale: string;
  applicationName: string | null;
  /** Logo and colour; absent: the neutral look with the application's name. */
  branding?: PageBranding;
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
  /** An agreement's signer who has a passkey: the assertion request the page makes on sign, and the WebAuthn script's SRI digest. */
  passkeySigning?: { options: Record<string, unknown>; integrity: string } | null;
}

export { escapeHtml };

/** JSON for a `<script type="application/json">` block: `<` escaped so no `</script>` can close it. */
function jsonBlock(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
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

/** A purpose the person does not choose: required by the flow on a lawful basis other than consent. */
export function isFixedPurpose(p: { required: boolean; mechanism?: string }): boolean {
  return p.required && p.mechanism !== undefined && p.mechanism !== 'consent';
}

/**
 * A consent page shows the standard path on one screen when there is nothing else to do: no
 * check to run, the person already bound by the application's server and not asked to sign in
 * to confirm it is them. The page then walks
 * the spec's steps for the person on their one choice (see frame-script).
 */
export function isOneScreen(model: Pick<PageModel, 'session' | 'flow' | 'personNotice'>): boolean {
  const { session, flow } = model;
  // A person notice means the person still has to sign in to confirm it is them: a step to do.
  return (
    session.kind === 'consent' &&
    (session.consentPath ?? 'standard') === 'standard' &&
    (flow?.requirements ?? []).length === 0 &&
    session.principalId !== null &&
    !model.personNotice
  );
}

/** `lang` for text the application wrote in the flow's locale (empty when unknown). */
function flowLang(flow: FlowPresentation | null): string {
  return flow?.locale && /^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/.test(flow.locale) ? ` lang="${escapeHtml(flow.locale)}"` : '';
}

/**
 * Every purpose is its own control: an unticked checkbox for each consent purpose (nothing
 * pre-ticked), and a fixed row, marked as such, for a purpose the flow requires on another
 * lawful basis. The page script sends the ticked keys with `complete`.
 */
function purposeRows(flow: FlowPresentation, t: Dictionary, session: DecisionSession): string {
  const lang = flowLang(flow);
  // A decided session shows the answer recorded (read-only); an open one starts with nothing ticked.
  const decided = session.completedAt !== null && session.completedAt !== undefined;
  const granted = new Set(decided && session.outcome === 'granted' ? session.purposes : []);
  return flow.purposes
    .map((p, i) => {
      const id = `svc-purpose-${i}`;
      const label = escapeHtml(p.label || p.key);
      const desc = p.description ? `<p class="desc" id="${id}-d"${lang}>${escapeHtml(p.description)}</p>` : '';
      if (isFixedPurpose(p)) {
        return `<div class="purpose fixed" data-purpose="${escapeHtml(p.key)}" data-fixed="true"><span class="mark" aria-hidden="true">✓</span><span${lang}><strong>${label}</strong></span><p class="fixed-note">${escapeHtml(t.always_active)}</p>${desc}</div>`;
      }
      const state = decided ? `${granted.has(p.key) ? ' checked' : ''} disabled` : '';
      return `<div class="purpose"><input type="checkbox" id="${id}" name="purpose" value="${escapeHtml(p.key)}"${state}${desc ? ` aria-describedby="${id}-d"` : ''}><label for="${id}"${lang}>${label}</label>${desc}</div>`;
    })
    .join('');
}

function consentBody(model: PageModel, t: Dictionary): string {
  const flow = model.flow;
  const lang = flowLang(flow);
  const policy =
    flow?.policyUrl && /^https?:\/\//.test(flow.policyUrl)
      ? `<p><a href="${escapeHtml(flow.policyUrl)}" rel="noopener noreferrer" target="_blank">${escapeHtml(t.policy)}</a></p>`
      : '';
  const description = flow?.description ? `<p${lang}>${escapeHtml(flow.description)}</p>` : '';
  const disclosures =
    model.session.consentPath === 'informed'
      ? `<section aria-labelledby="svc-disclosures-h"><h2 id="svc-disclosures-h">${escapeHtml(t.disclosures)}</h2><p>${escapeHtml(t.disclosures_intro)}</p>${description}</section>`
      : description;
  const purposes =
    flow && flow.purposes.length
      ? `<fieldset class="choices" id="svc-purposes" aria-describedby="svc-purposes-intro"><legend><h2 id="svc-purposes-h">${escapeHtml(t.purposes)}</h2></legend><p class="intro" id="svc-purposes-intro">${escapeHtml(t.purposes_intro)}</p>${purposeRows(flow, t, model.session)}</fieldset>`
      : '';
  return `${disclosures}<section aria-labelledby="svc-purposes-h">${purposes}${policy}</section>`;
}

/**
 * An escalated grant shows the proposal of the contract (every detail); an approval minted through
 * the API shows its free-form `{ action | actions, bounds }`.
 */
function approvalBody(model: PageModel, t: Dictionary): string {
  const escalated = parseApprovalProposal(model.session.proposal);
  if (escalated) return escalatedGrantBody(escalated, t, model.locale);
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

/**
 * The application's logo and name; nothing when there is neither. The name is written out beside
 * the logo, so the logo is decorative (empty alt) and a screen reader hears the name once.
 */
function brandLine(branding: PageBranding, t: Dictionary): string {
  const name = branding.name ? escapeHtml(branding.name) : '';
  const alt = name ? '' : escapeHtml(fill(t.logo_alt, { name: '' }).trim());
  const logo = branding.logoUrl ? `<img src="${escapeHtml(branding.logoUrl)}" alt="${alt}" height="40" referrerpolicy="no-referrer">` : '';
  if (!logo && !name) return '';
  return `<p class="brand">${logo}${name ? `<span>${name}</span>` : ''}</p>`;
}

/** The complete HTML document of a decision page (full or embed). */
export function renderDecisionPage(model: PageModel): string {
  const t = dictionary(model.locale);
  const { session } = model;
  const branding: PageBranding = model.branding ?? { name: model.applicationName, logoUrl: null, brandColor: null };
  const titleLang = session.kind === 'consent' && model.flow?.title ? flowLang(model.flow) : '';
  const title =
    session.kind === 'consent'
      ? model.flow?.title || t.page_title_consent
      : session.kind === 'approval'
        ? t.page_title_approval
        : t.page_title_signature_request;
  const body =
    session.kind === 'consent' ? consentBody(model, t) : session.kind === 'approval' ? approvalBody(model, t) : signingBody(model, t);
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
    branding: { name: branding.name, logo_url: branding.logoUrl },
    one_screen: isOneScreen(model),
    date_options: DATE_OPTIONS,
    granted: session.kind === 'consent' && session.outcome === 'granted' ? session.purposes : null,
    purposes: (model.flow?.purposes ?? []).map((p) => ({ key: p.key, label: p.label || p.key, fixed: isFixedPurpose(p) })),
    passkey_signing: model.passkeySigning ? model.passkeySigning.options : null,
    strings: t,
  };
  const webauthn = model.passkeySigning
    ? `<script nonce="${model.nonce}" src="/people/assets/webauthn.js" integrity="${escapeHtml(model.passkeySigning.integrity)}" crossorigin="anonymous"></script>\n`
    : '';
  return `<!doctype html>
<html lang="${escapeHtml(model.locale)}" dir="${textDirection(model.locale)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(title)}</title>
<style nonce="${model.nonce}">${PAGE_STYLES}${brandStyles(brandPalette(branding.brandColor))}</style>
</head>
<body class="${model.variant}">
<main id="svc-main" aria-busy="false">
${brandLine(branding, t)}
<h1 id="svc-title" tabindex="-1"${titleLang}>${escapeHtml(title)}</h1>
<p class="deadline">${escapeHtml(t.deadline)} ${timeElement(session.deadline.toISOString(), model.locale, 'deadline')}</p>
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
${webauthn}<script nonce="${model.nonce}">${FRAME_SCRIPT}</script>
</body>
</html>`;
}

/** Which error page: an unknown link (404) or a redirect_uri off the allowed origins (400). */
export type ErrorPageKind = 'not_found' | 'redirect_uri_not_allowed' | 'link_expired';

/** A small localized error page (404 for an unknown token or a draft flow, 400 for a bad redirect_uri, 410 for an expired approval link). */
export function renderErrorPage(locale: string, nonce: string, kind: ErrorPageKind = 'not_found'): string {
  const t = dictionary(locale);
  const [heading, message] =
    kind === 'not_found'
      ? [t.not_found_title, t.not_found_text]
      : kind === 'link_expired'
        ? [t.link_expired_title, t.link_expired_text]
        : [t.redirect_not_allowed_title, t.redirect_not_allowed_text];
  const code = kind === 'redirect_uri_not_allowed' ? `<p class="code"><code>${escapeHtml(kind)}</code></p>` : '';
  return `<!doctype html>
<html lang="${escapeHtml(locale)}" dir="${textDirection(locale)}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(heading)}</title><style nonce="${nonce}">${PAGE_STYLES}</style></head>
<body class="full"><main id="svc-main"><h1>${escapeHtml(heading)}</h1><p>${escapeHtml(message)}</p>${code}</main></body></html>`;
}
