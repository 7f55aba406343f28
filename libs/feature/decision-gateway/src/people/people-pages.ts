import { PAGE_STYLES } from '../hosted/page-styles';
import { peopleCatalogue, peopleText, type PeopleLocale } from './people-i18n';

/** Extra rules of the people pages, on top of the hosted pages' stylesheet. */
const PEOPLE_STYLES = `
form.people{display:grid;gap:.75rem;margin-top:1rem}
form.people label{font-weight:600}
form.people input,form.people select{font:inherit;min-height:44px;padding:.5rem;border:1px solid #8a94a3;border-radius:6px;width:100%}
.alt{margin-top:1.5rem;color:#4a5360}
ul.items{list-style:none;padding:0}
ul.items li{display:flex;justify-content:space-between;align-items:center;gap:1rem;padding:.5rem 0;border-bottom:1px solid #e8ebef}
`;

export interface PeoplePageModel {
  locale: PeopleLocale;
  nonce: string;
  /** SRI of the WebAuthn browser library (passkeys). */
  webauthnIntegrity: string;
  returnTo: string;
  /** Home countries a person may choose (sign-up). */
  countries?: readonly string[];
  /** Prefilled sign-up values (after a redirect from another region). */
  prefill?: { country?: string };
}

function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);
}

function layout(model: PeoplePageModel, title: string, body: string, page: string): string {
  const t = peopleCatalogue(model.locale);
  const config = JSON.stringify({ page, returnTo: model.returnTo, t }).replace(/</g, '\\u003c');
  return `<!doctype html>
<html lang="${model.locale}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style nonce="${model.nonce}">${PAGE_STYLES}${PEOPLE_STYLES}</style>
</head>
<body>
<main>
<h1>${escapeHtml(title)}</h1>
${body}
<p id="people-status" role="status" aria-live="polite"></p>
</main>
<script nonce="${model.nonce}" src="/people/assets/webauthn.js" integrity="${model.webauthnIntegrity}" crossorigin="anonymous"></script>
<script nonce="${model.nonce}" id="people-config" type="application/json">${config}</script>
<script nonce="${model.nonce}">${PEOPLE_SCRIPT}</script>
</body>
</html>`;
}

const codeForm = (locale: PeopleLocale) => `
<form id="people-code" class="people" hidden novalidate>
  <label for="people-code-input">${escapeHtml(peopleText(locale, 'code_label'))}</label>
  <input id="people-code-input" name="code" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]{6}" maxlength="6" required>
  <button type="submit" class="primary">${escapeHtml(peopleText(locale, 'verify_code'))}</button>
</form>`;

/** `GET /people/sign-in`: passkey, or an email code. */
export function renderSignInPage(model: PeoplePageModel): string {
  const l = model.locale;
  const back = encodeURIComponent(model.returnTo);
  return layout(
    model,
    peopleText(l, 'sign_in_title'),
    `<button type="button" id="people-passkey" class="primary">${escapeHtml(peopleText(l, 'use_passkey'))}</button>
<form id="people-email" class="people" novalidate>
  <label for="people-email-input">${escapeHtml(peopleText(l, 'email_label'))}</label>
  <input id="people-email-input" name="email" type="email" autocomplete="email webauthn" required maxlength="254">
  <button type="submit" class="secondary">${escapeHtml(peopleText(l, 'send_code'))}</button>
</form>
${codeForm(l)}
<p class="alt">${escapeHtml(peopleText(l, 'no_account'))} <a id="people-sign-up-link" href="/people/sign-up?return_to=${back}">${escapeHtml(peopleText(l, 'sign_up_link'))}</a></p>`,
    'sign_in',
  );
}

/** `GET /people/sign-up`: name, email and home country (which picks the region). */
export function renderSignUpPage(model: PeoplePageModel): string {
  const l = model.locale;
  const back = encodeURIComponent(model.returnTo);
  const names = new Intl.DisplayNames([l], { type: 'region' });
  const options = [...(model.countries ?? [])]
    .map((code) => ({ code, name: names.of(code) ?? code }))
    .sort((a, b) => a.name.localeCompare(b.name, l))
    .map((c) => `<option value="${c.code}"${model.prefill?.country === c.code ? ' selected' : ''}>${escapeHtml(c.name)}</option>`)
    .join('');
  return layout(
    model,
    peopleText(l, 'sign_up_title'),
    `<form id="people-email" class="people" data-purpose="sign_up" novalidate>
  <label for="people-name-input">${escapeHtml(peopleText(l, 'display_name_label'))}</label>
  <input id="people-name-input" name="display_name" autocomplete="name" required maxlength="200">
  <label for="people-email-input">${escapeHtml(peopleText(l, 'email_label'))}</label>
  <input id="people-email-input" name="email" type="email" autocomplete="email" required maxlength="254">
  <label for="people-country-input">${escapeHtml(peopleText(l, 'country_label'))}</label>
  <select id="people-country-input" name="home_country" required>${options}</select>
  <button type="submit" class="primary">${escapeHtml(peopleText(l, 'send_code'))}</button>
</form>
${codeForm(l)}
<p class="alt">${escapeHtml(peopleText(l, 'have_account'))} <a href="/people/sign-in?return_to=${back}">${escapeHtml(peopleText(l, 'sign_in_link'))}</a></p>`,
    'sign_up',
  );
}

export interface AccountPageModel extends PeoplePageModel {
  person: { displayName: string; email: string; homeCountry: string };
  passkeys: ReadonlyArray<{ id: string; createdAt: Date }>;
  links: ReadonlyArray<{ id: string; applicationName: string; kind: 'external_id' | 'email'; value: string }>;
}

/** `GET /people/account`: profile, passkeys (add, remove), application links (remove), sign-out. */
export function renderAccountPage(model: AccountPageModel): string {
  const l = model.locale;
  const country = new Intl.DisplayNames([l], { type: 'region' }).of(model.person.homeCountry) ?? model.person.homeCountry;
  const passkeys = model.passkeys.length
    ? `<ul class="items" id="people-passkeys">${model.passkeys
        .map(
          (p) =>
            `<li><span>${escapeHtml(p.createdAt.toISOString().slice(0, 10))}</span><button type="button" class="secondary" data-remove-passkey="${escapeHtml(p.id)}">${escapeHtml(peopleText(l, 'remove'))}</button></li>`,
        )
        .join('')}</ul>`
    : `<p id="people-passkeys">${escapeHtml(peopleText(l, 'no_passkeys'))}</p>`;
  const links = model.links.length
    ? `<ul class="items" id="people-links">${model.links
        .map(
          (link) =>
            `<li><span>${escapeHtml(link.applicationName)} · ${escapeHtml(peopleText(l, link.kind === 'email' ? 'link_subject_email' : 'link_subject_external_id'))}: ${escapeHtml(link.value)}</span><button type="button" class="secondary" data-remove-link="${escapeHtml(link.id)}">${escapeHtml(peopleText(l, 'remove'))}</button></li>`,
        )
        .join('')}</ul>`
    : `<p id="people-links">${escapeHtml(peopleText(l, 'no_links'))}</p>`;
  return layout(
    model,
    peopleText(l, 'account_title'),
    `<p id="people-signed-in">${escapeHtml(peopleText(l, 'signed_in_as', { name: model.person.displayName }))}</p>
<p><a id="people-inbox-link" href="/inbox">${escapeHtml(peopleText(l, 'inbox_link'))}</a></p>
<h2>${escapeHtml(peopleText(l, 'profile_heading'))}</h2>
<dl><dt>${escapeHtml(peopleText(l, 'email_label'))}</dt><dd>${escapeHtml(model.person.email)}</dd><dt>${escapeHtml(peopleText(l, 'home_country'))}</dt><dd>${escapeHtml(country)}</dd></dl>
<h2>${escapeHtml(peopleText(l, 'passkeys_heading'))}</h2>
${passkeys}
<button type="button" id="people-add-passkey" class="primary">${escapeHtml(peopleText(l, 'add_passkey'))}</button>
<h2>${escapeHtml(peopleText(l, 'links_heading'))}</h2>
${links}
<p class="alt"><button type="button" id="people-sign-out" class="secondary">${escapeHtml(peopleText(l, 'sign_out'))}</button></p>`,
    'account',
  );
}

export interface InboxPageModel extends PeoplePageModel {
  rows: ReadonlyArray<{
    kind: 'consent' | 'approval';
    applicationId: string;
    applicationName: string;
    triggerType: string | null;
    reference: string | null;
    deadline: Date;
    decisionUrl: string;
  }>;
  filters: { kind?: string; trigger_type?: string; application_id?: string; sort?: string };
  nextCursor: string | null;
  timeZone: string;
}

/** `GET /inbox`: the signed-in person's pending decisions, filter and sort links, next page. */
export function renderInboxPage(model: InboxPageModel): string {
  const l = model.locale;
  const link = (change: Record<string, string | undefined>, label: string, current: boolean): string => {
    const merged: Record<string, string | undefined> = { ...model.filters, ...change };
    const query = Object.entries(merged)
      .filter((entry): entry is [string, string] => entry[1] !== undefined)
      .map(([k, v]) => `${k}=${encodeURIComponent(v)}`)
      .join('&');
    return `<a href="/inbox${query ? `?${query}` : ''}"${current ? ' aria-current="page"' : ''}>${escapeHtml(label)}</a>`;
  };
  const f = model.filters;
  const when = new Intl.DateTimeFormat(l, { dateStyle: 'medium', timeStyle: 'short', timeZone: model.timeZone });
  const kinds = [
    link({ kind: undefined, trigger_type: undefined }, peopleText(l, 'filter_all'), !f.kind),
    link({ kind: 'consent', trigger_type: undefined }, peopleText(l, 'kind_consent'), f.kind === 'consent'),
    link({ kind: 'approval' }, peopleText(l, 'kind_approval'), f.kind === 'approval'),
  ].join(' · ');
  const triggers =
    f.kind === 'approval'
      ? `<p id="people-triggers">${['scope', 'action', 'value', 'time', 'escalation', 'reputation'].map((t) => link({ trigger_type: t }, t, f.trigger_type === t)).join(' · ')}</p>`
      : '';
  const sorts = [
    link({ sort: undefined }, peopleText(l, 'sort_deadline'), f.sort !== 'newest'),
    link({ sort: 'newest' }, peopleText(l, 'sort_newest'), f.sort === 'newest'),
  ].join(' · ');
  const apps = f.application_id ? `<p>${link({ application_id: undefined }, peopleText(l, 'all_applications'), false)}</p>` : '';
  const rows = model.rows.length
    ? `<ul class="items" id="people-inbox">${model.rows
        .map(
          (r) =>
            `<li><span>${link({ application_id: r.applicationId }, r.applicationName, false)} · ${escapeHtml(peopleText(l, r.kind === 'consent' ? 'kind_consent' : 'kind_approval'))}${r.triggerType ? ` · ${escapeHtml(peopleText(l, 'trigger_label'))}: ${escapeHtml(r.triggerType)}` : ''}${r.reference ? ` · ${escapeHtml(r.reference)}` : ''}<br><small>${escapeHtml(peopleText(l, 'deadline_label'))} <time datetime="${r.deadline.toISOString()}">${escapeHtml(when.format(r.deadline))}</time></small></span><a class="open" href="${escapeHtml(r.decisionUrl)}">${escapeHtml(peopleText(l, 'open_decision'))}</a></li>`,
        )
        .join('')}</ul>`
    : `<p id="people-inbox">${escapeHtml(peopleText(l, 'inbox_empty'))}</p>`;
  const next = model.nextCursor ? `<p>${link({ cursor: model.nextCursor }, peopleText(l, 'next_page'), false)}</p>` : '';
  // Device links: the link URL as a QR code the phone scans, and the one-time code and URL as text.
  const devices = `<section id="device-links"><h2>${escapeHtml(peopleText(l, 'device_links_title'))}</h2><p>${escapeHtml(peopleText(l, 'device_links_text'))}</p><button type="button" id="device-link-start">${escapeHtml(peopleText(l, 'device_links_button'))}</button><div id="device-link-result" hidden><p><img id="device-link-qr" alt="${escapeHtml(peopleText(l, 'device_links_title'))}" width="200" height="200" hidden></p><p>${escapeHtml(peopleText(l, 'device_links_code'))}</p><p><code id="device-link-url"></code></p><p><code id="device-link-code"></code></p></div></section><script nonce="${model.nonce}">${DEVICE_LINK_SCRIPT}</script>`;
  return layout(
    model,
    peopleText(l, 'inbox_title'),
    `<nav aria-label="${escapeHtml(peopleText(l, 'inbox_title'))}"><p>${kinds}</p>${triggers}<p>${sorts}</p>${apps}</nav>${rows}${next}${devices}`,
    'inbox',
  );
}

/** The inbox page's device-link button: asks for a link code (same-origin JSON call) and shows it with its URL. */
const DEVICE_LINK_SCRIPT = `(function(){
'use strict';
var button = document.getElementById('device-link-start');
if (!button) return;
button.addEventListener('click', function(){
  fetch('/api/v1/device_links', { method: 'POST', credentials: 'same-origin', headers: { 'content-type': 'application/json' }, body: '{}' })
    .then(function(res){ return res.json(); })
    .then(function(data){
      if (!data || !data.link_code) return;
      document.getElementById('device-link-url').textContent = data.link_url;
      document.getElementById('device-link-code').textContent = data.link_code;
      if (data.qr_svg) {
        // As an image from a data: URL, never as markup of the page.
        var qr = document.getElementById('device-link-qr');
        qr.src = 'data:image/svg+xml;charset=utf-8,' + encodeURIComponent(data.qr_svg);
        qr.hidden = false;
      }
      document.getElementById('device-link-result').hidden = false;
    });
});
})();`;

/**
 * The pages' script (ES5-compatible, no framework): JSON calls to this origin only, WebAuthn
 * through the SimpleWebAuthnBrowser global of the served library.
 */
const PEOPLE_SCRIPT = `(function(){
'use strict';
var cfg = JSON.parse(document.getElementById('people-config').textContent);
var t = cfg.t;
var statusEl = document.getElementById('people-status');
function say(text){ statusEl.textContent = text; }
function fill(s, n){ return s.replace('{n}', String(n)); }
function call(method, path, body){
  var init = { method: method, credentials: 'same-origin', headers: {} };
  if (body !== undefined) { init.headers['content-type'] = 'application/json'; init.body = JSON.stringify(body); }
  return fetch(path, init).then(function(res){
    return res.text().then(function(text){ var data = null; try { data = text ? JSON.parse(text) : null; } catch (e) {} return { status: res.status, data: data, retryAfter: res.headers.get('retry-after') }; });
  });
}
function explain(res){
  var code = res.data && res.data.reason_code;
  if (res.status === 429) return say(fill(t.rate_limited, res.retryAfter || '60'));
  if (code === 'email_code_invalid') return say(fill(t.code_invalid, res.data.detail && res.data.detail.attempts_left));
  if (code === 'email_code_expired') return say(t.code_expired);
  if (code === 'passkey_invalid') return say(t.passkey_failed);
  say(t.failed);
}
function go(path){ window.location.assign(path); }
var emailForm = document.getElementById('people-email');
var codeForm = document.getElementById('people-code');
var challenge = null;
if (emailForm) emailForm.addEventListener('submit', function(ev){
  ev.preventDefault();
  var purpose = emailForm.getAttribute('data-purpose') || 'sign_in';
  var body = { purpose: purpose, email: emailForm.elements.email.value, return_to: cfg.returnTo };
  if (purpose === 'sign_up') {
    body.display_name = emailForm.elements.display_name.value;
    body.home_country = emailForm.elements.home_country.value;
    body.locale = navigator.language || 'en';
    try { body.time_zone = Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC'; } catch (e) { body.time_zone = 'UTC'; }
  }
  call('POST', '/people/email_codes', body).then(function(res){
    if (res.status === 421 && res.data && res.data.detail && res.data.detail.home_region_url) {
      say(t.wrong_region);
      if (purpose === 'sign_in') return go(res.data.detail.home_region_url + '/people/sign-in');
      return go(res.data.detail.home_region_url + '/people/sign-up?country=' + encodeURIComponent(body.home_country));
    }
    if (res.status !== 202) return explain(res);
    challenge = res.data.challenge_id;
    say(t.code_sent);
    codeForm.hidden = false;
    document.getElementById('people-code-input').focus();
  });
});
if (codeForm) codeForm.addEventListener('submit', function(ev){
  ev.preventDefault();
  call('POST', '/people/email_codes/verify', { challenge_id: challenge, code: codeForm.elements.code.value.trim() }).then(function(res){
    if (res.status === 200) return go(res.data.return_to);
    explain(res);
  });
});
var W = window.SimpleWebAuthnBrowser;
var passkeyButton = document.getElementById('people-passkey');
if (passkeyButton) passkeyButton.addEventListener('click', function(){
  call('POST', '/people/passkeys/authentication_options', { return_to: cfg.returnTo }).then(function(res){
    if (res.status !== 200) return explain(res);
    return W.startAuthentication({ optionsJSON: res.data.options }).then(function(credential){
      return call('POST', '/people/passkeys/sign_in', { challenge_id: res.data.challenge_id, credential: credential });
    }).then(function(done){ if (done.status === 200) return go(done.data.return_to); explain(done); });
  }).catch(function(){ say(t.passkey_failed); });
});
var addButton = document.getElementById('people-add-passkey');
if (addButton) addButton.addEventListener('click', function(){
  call('POST', '/people/passkeys/registration_options', {}).then(function(res){
    if (res.status !== 200) return explain(res);
    return W.startRegistration({ optionsJSON: res.data.options }).then(function(credential){
      return call('POST', '/people/passkeys', { challenge_id: res.data.challenge_id, credential: credential });
    }).then(function(done){ if (done.status === 201) { say(t.passkey_added); return go('/people/account'); } explain(done); });
  }).catch(function(){ say(t.passkey_failed); });
});
Array.prototype.forEach.call(document.querySelectorAll('[data-remove-passkey]'), function(button){
  button.addEventListener('click', function(){
    call('DELETE', '/people/passkeys/' + encodeURIComponent(button.getAttribute('data-remove-passkey'))).then(function(res){ if (res.status === 204) return go('/people/account'); explain(res); });
  });
});
Array.prototype.forEach.call(document.querySelectorAll('[data-remove-link]'), function(button){
  button.addEventListener('click', function(){
    call('DELETE', '/people/links/' + encodeURIComponent(button.getAttribute('data-remove-link'))).then(function(res){ if (res.status === 204) return go('/people/account'); explain(res); });
  });
});
var signOut = document.getElementById('people-sign-out');
if (signOut) signOut.addEventListener('click', function(){
  call('POST', '/people/sign_out', {}).then(function(){ go('/people/sign-in'); });
});
})();`;
