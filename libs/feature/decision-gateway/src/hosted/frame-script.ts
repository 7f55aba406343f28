/**
 * The script of the hosted decision pages, sent inline under the page's CSP nonce (no
 * 'unsafe-inline', no eval). It reads its configuration from the page's JSON data block, drives
 * the session through the session-token API (same origin: no cookies, no CORS) and speaks
 * postMessage protocol v2 to the embedding host or the opener.
 *
 * Contract kept here (the tests check it):
 * - it posts only to `parent_origin`, an origin the server checked against the application's
 *   allowed origins; never to `*`. With a host window but no such origin it drops the message and
 *   reports the drop to `drop_url`, batched (the server counts
 *   `trust_surface_postmessage_dropped_total{reason="origin_missing"}`).
 * - `ts` is server-authoritative: the server's clock at render time plus the monotonic time
 *   elapsed since (performance.now), never the browser's wall clock.
 * - deadline ticks at T-30/-15/-5/-0 from the session deadline, on that same server time base; a
 *   page opened late first emits the most recent threshold already passed, then the rest, in order.
 * - `svc:cancel` from the host (same origin check, v2 envelope) declines the session.
 *
 * Plain ES2017 in a string: the gateway serves it as-is, with nothing to build.
 */
export const FRAME_SCRIPT = String.raw`(function () {
  'use strict';
  var cfg = JSON.parse(document.getElementById('svc-config').textContent);
  var t = cfg.strings;
  var t0 = performance.now();
  var serverNow = Date.parse(cfg.server_now);
  var deadlineAt = Date.parse(cfg.deadline);
  var state = cfg.state;
  var ended = false;
  var host = cfg.target === 'parent' ? (window.parent !== window ? window.parent : null) : cfg.target === 'opener' ? window.opener : null;
  var dropped = 0;
  var dropTimer = null;
  var skipDrops = cfg.ready_drop_counted ? 1 : 0;
  var quiet = false;
  var granted = cfg.granted || null;
  var purposes = cfg.purposes || [];
  var $ = function (id) { return document.getElementById(id); };

  function dateLocales() {
    var langs = navigator.languages && navigator.languages.length ? navigator.languages : [navigator.language];
    for (var i = 0; i < langs.length; i++) {
      if (langs[i] && String(langs[i]).toLowerCase().split('-')[0] === cfg.locale) return [langs[i], cfg.locale];
    }
    return [cfg.locale];
  }
  function localizeTimes() {
    var fmt;
    try { fmt = new Intl.DateTimeFormat(dateLocales(), cfg.date_options); } catch (e) { return; }
    var times = document.querySelectorAll('time[data-format="datetime"]');
    for (var i = 0; i < times.length; i++) {
      var at = new Date(times[i].getAttribute('datetime'));
      if (!isNaN(at.getTime())) times[i].textContent = fmt.format(at);
    }
  }
  function listOf(items) {
    try { return new Intl.ListFormat(cfg.locale, { type: 'conjunction' }).format(items); } catch (e) { return items.join(', '); }
  }

  function now() { return new Date(serverNow + (performance.now() - t0)); }
  function uuid() {
    if (window.crypto && crypto.randomUUID) return crypto.randomUUID();
    var b = crypto.getRandomValues(new Uint8Array(16));
    b[6] = (b[6] & 15) | 64; b[8] = (b[8] & 63) | 128;
    var h = Array.prototype.map.call(b, function (x) { return (x + 256).toString(16).slice(1); }).join('');
    return h.slice(0, 8) + '-' + h.slice(8, 12) + '-' + h.slice(12, 16) + '-' + h.slice(16, 20) + '-' + h.slice(20);
  }
  function format(key, values) {
    return String(t[key] || key).replace(/\{(\w+)\}/g, function (_m, k) { return values && values[k] !== undefined ? values[k] : ''; });
  }

  function reportDrops() {
    dropTimer = null;
    var count = dropped;
    dropped = 0;
    if (count > 0) fetch(cfg.drop_url, { method: 'POST', keepalive: true, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ reason: 'origin_missing', count: count }) }).catch(function () {});
  }
  function emit(type, payload) {
    var message = { type: type, kind: cfg.envelope_kind, version: 2, payload: payload, ts: now().toISOString(), message_id: uuid() };
    if (!host) return;
    if (!cfg.parent_origin) {
      if (skipDrops > 0) { skipDrops -= 1; return; }
      dropped += 1;
      if (!dropTimer) dropTimer = setTimeout(reportDrops, 150);
      return;
    }
    host.postMessage(message, cfg.parent_origin);
  }

  var STEPS = { standard: ['pending', 'authenticating', 'verifying', 'reviewing'], informed: ['pending', 'informed', 'evidenced'] };
  function statePayload(from, to) {
    if (cfg.envelope_kind === 'consent') {
      var steps = STEPS[cfg.consent_path] || STEPS.standard;
      var index = steps.indexOf(to);
      return { from: from, to: to, step_index: index < 0 ? steps.length : index, total_steps: steps.length };
    }
    return { from: from, to: to, kind_payload: { decision_kind: cfg.decision_kind, trigger_type: cfg.trigger_type, allowed_actions: state.allowed_actions } };
  }
  var POSITIVE = { granted: 'granted', approved: 'approved', signed: 'approved' };
  function completeOutcome(outcome) {
    if (cfg.envelope_kind === 'consent') return outcome === 'granted' ? 'granted' : 'declined';
    return POSITIVE[outcome] ? 'approved' : 'denied';
  }

  function announce(text) { $('svc-status').textContent = text; }
  function setBusy(busy) {
    var buttons = document.querySelectorAll('#svc-actions button, #svc-actions input, #svc-actions textarea, #svc-purposes input');
    for (var i = 0; i < buttons.length; i++) buttons[i].disabled = busy || ended;
    $('svc-main').setAttribute('aria-busy', busy ? 'true' : 'false');
  }

  var LABELS = { sign_in: 'step_sign_in', start_checks: 'step_start_checks', review_terms: 'step_review_terms', present_disclosures: 'ack_disclosures', capture_evidence: 'evidence_submit', complete: 'agree', decline: 'decline', approve: 'approve', deny: 'deny', counter: 'counter', sign: 'sign' };
  var SECONDARY = { decline: true, deny: true, counter: true };
  var CHAIN = { pending: 'sign_in', authenticating: 'start_checks', verifying: 'review_terms' };
  var CHOICES = { accept_all: 'accept_all', reject_all: 'reject_all', save_choices: 'save_choices' };

  function boxes() { return document.querySelectorAll('#svc-purposes input[name="purpose"]'); }
  function fixedKeys() { return purposes.filter(function (p) { return p.fixed; }).map(function (p) { return p.key; }); }
  function chosenKeys(mode) {
    var list = boxes();
    var keys = {};
    for (var i = 0; i < list.length; i++) {
      if (mode === 'accept_all') list[i].checked = true;
      if (mode === 'reject_all') list[i].checked = false;
      if (list[i].checked) keys[list[i].value] = true;
    }
    fixedKeys().forEach(function (k) { keys[k] = true; });
    return purposes.filter(function (p) { return keys[p.key]; }).map(function (p) { return p.key; });
  }
  function labelsOf(keys) {
    return purposes.filter(function (p) { return keys.indexOf(p.key) >= 0; }).map(function (p) { return p.label; });
  }

  /** The consent step where the person chooses: complete is allowed, or a one-screen page still before it. */
  function isChoiceStep(allowed) {
    if (cfg.envelope_kind !== 'consent') return false;
    if (allowed.indexOf('complete') >= 0) return true;
    return !!(cfg.one_screen && CHAIN[state.status] && allowed.indexOf(CHAIN[state.status]) >= 0);
  }

  /** Sends the final move; on a one-screen page first walks the remaining standard steps, quietly. */
  function decide(final) {
    if (final.action === 'decline') return move(final);
    quiet = true;
    function next() {
      var step = CHAIN[state.status];
      if (cfg.one_screen && step && state.allowed_actions.indexOf(step) >= 0) {
        var before = state.status;
        return move({ action: step }).then(function () {
          if (state.status !== before && !ended) return next();
          quiet = false;
          if (!ended) render();
        });
      }
      quiet = false;
      return move(final);
    }
    return next();
  }
  function choose(mode) {
    var keys = chosenKeys(mode);
    if (keys.length === 0) return decide({ action: 'decline' });
    granted = keys;
    return decide({ action: 'complete', purposes: keys });
  }

  function button(action, onClick) {
    var b = document.createElement('button');
    b.type = 'button';
    b.id = 'svc-action-' + action;
    b.className = SECONDARY[action] ? 'secondary' : 'primary';
    b.textContent = t[LABELS[action]] || action;
    b.addEventListener('click', onClick);
    return b;
  }

  function render() {
    var actions = $('svc-actions');
    actions.textContent = '';
    var progress = $('svc-progress');
    if (cfg.envelope_kind === 'consent' && !ended && !cfg.one_screen) {
      var steps = STEPS[cfg.consent_path] || STEPS.standard;
      var index = steps.indexOf(state.status);
      progress.textContent = index < 0 ? '' : format('step', { n: index + 1, total: steps.length });
    } else {
      progress.textContent = '';
    }
    var evidence = document.getElementById('svc-evidence-block');
    if (evidence) evidence.hidden = state.status !== 'informed';
    if (ended) return;
    var allowed = (state.allowed_actions || []).filter(function (a) { return LABELS[a]; });
    actions.className = '';
    if (isChoiceStep(allowed) && purposes.length) {
      var free = purposes.some(function (p) { return !p.fixed; });
      // Only purposes fixed by the flow: nothing to choose between, so agree or decline.
      var modes = free ? ['accept_all', 'reject_all', 'save_choices'] : ['complete', 'decline'];
      actions.className = free ? 'choice-row' : 'choice-row two';
      modes.forEach(function (mode) {
        var b = document.createElement('button');
        b.type = 'button';
        b.id = 'svc-action-' + mode;
        b.className = 'choice';
        b.textContent = t[CHOICES[mode] || LABELS[mode]];
        b.addEventListener('click', function () { if (mode === 'decline') decide({ action: 'decline' }); else choose(mode === 'complete' ? 'accept_all' : mode); });
        actions.appendChild(b);
      });
      return;
    }
    allowed.forEach(function (action) {
      if (action === 'capture_evidence') {
        var wrap = document.createElement('div');
        wrap.className = 'field';
        var box = document.createElement('input');
        box.type = 'checkbox'; box.id = 'svc-evidence'; box.required = true;
        var label = document.createElement('label');
        label.htmlFor = 'svc-evidence'; label.textContent = t.evidence_label;
        wrap.appendChild(box); wrap.appendChild(label);
        actions.appendChild(wrap);
        var confirm = button(action, function () {
          if (!box.checked) { box.focus(); announce(t.evidence_label); return; }
          move({ action: 'capture_evidence', evidence: { type: 'comprehension_check', passed: true, captured_at: now().toISOString() } });
        });
        actions.appendChild(confirm);
        return;
      }
      if (action === 'counter') {
        actions.appendChild(button(action, function () {
          var form = $('svc-counter');
          form.hidden = false;
          $('svc-counter-text').focus();
        }));
        return;
      }
      if (action === 'sign' && cfg.passkey_signing) {
        actions.appendChild(button(action, function () { signWithPasskey(); }));
        return;
      }
      actions.appendChild(button(action, function () { move({ action: action }); }));
    });
  }

  function finish(body) {
    ended = true;
    setBusy(false);
    var outcome = body.outcome || body.status;
    var labels = outcome === 'granted' && granted ? labelsOf(granted) : [];
    announce(body.status === 'expired' && outcome === 'expired' ? t.status_expired : labels.length ? format('status_done_purposes', { names: listOf(labels) }) : format('status_done', { outcome: t['outcome_' + outcome] || outcome }));
    $('svc-counter').hidden = true;
    render();
    if (outcome === 'expired') return;
    var positive = completeOutcome(outcome) === 'granted' || completeOutcome(outcome) === 'approved';
    if (!positive && (outcome === 'declined' || outcome === 'denied')) emit('svc:cancel', { reason: 'user_declined', cancelled_by: 'user' });
    emit('svc:complete', { outcome: completeOutcome(outcome), exchange_token: body.exchange_token || null, completed_at: now().toISOString() });
    if (cfg.redirect_uri) {
      setTimeout(function () { window.location.assign(positive ? cfg.redirect_uri : cfg.redirect_uri + '?error=access_denied'); }, 50);
    }
  }

  function apply(body) {
    var from = state.status;
    state = body;
    if (from !== body.status) emit('svc:state', statePayload(from, body.status));
    if (body.outcome) { finish(body); return; }
    if (quiet) return;
    announce('');
    render();
    var heading = $('svc-progress');
    if (heading.textContent) heading.focus(); else $('svc-title').focus();
  }

  function fail(code, message, fatal) {
    announce(t.status_error);
    emit('svc:error', { code: code, message: message, fatal: fatal, recoverable_via: fatal ? 'none' : 'retry' });
  }

  function move(body) {
    if (ended) return Promise.resolve();
    setBusy(true);
    announce(t.status_working);
    return fetch(cfg.api_base + '/transitions', { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, body: JSON.stringify(body) })
      .then(function (res) {
        return res.json().then(function (json) { return { res: res, json: json }; });
      })
      .then(function (r) {
        setBusy(false);
        if (r.res.ok) { apply(r.json); return; }
        if (r.res.status === 410) { expire(); return; }
        if (r.json.reason_code === 'sign_in_required' && r.json.detail && r.json.detail.sign_in_url && window.top === window) { window.location.assign(r.json.detail.sign_in_url); return; }
        fail(r.json.reason_code || 'http_' + r.res.status, r.json.message || '', r.res.status === 404);
      })
      .catch(function (e) { setBusy(false); fail('network_error', String(e && e.message || e), false); });
  }

  // An agreement's signer who has a passkey signs with it: the assertion over this signature is bound into it.
  function signWithPasskey() {
    if (ended) return Promise.resolve();
    var lib = window.SimpleWebAuthnBrowser;
    if (!lib) { fail('passkey_unavailable', 'passkeys are not available on this page', false); return Promise.resolve(); }
    setBusy(true);
    announce(t.status_working);
    return lib.startAuthentication({ optionsJSON: cfg.passkey_signing })
      .then(function (assertion) { setBusy(false); return move({ action: 'sign', passkey_assertion: assertion }); })
      .catch(function (e) { setBusy(false); fail('passkey_cancelled', String(e && e.message || e), false); });
  }

  function expire() {
    return fetch(cfg.api_base + '/state', { headers: { accept: 'application/json' } })
      .then(function (res) { return res.ok ? res.json() : null; })
      .then(function (body) {
        if (body && body.status !== state.status) { var from = state.status; state = body; emit('svc:state', statePayload(from, body.status)); }
        ended = true;
        announce(t.status_expired);
        render();
      })
      .catch(function () { ended = true; announce(t.status_expired); render(); });
  }

  function deadlineTicks() {
    var remaining = deadlineAt - now().getTime();
    var thresholds = [30, 15, 5, 0];
    var passed = thresholds.filter(function (s) { return remaining <= s * 1000; });
    var latestPassed = passed.length ? passed[passed.length - 1] : null;
    function tick(seconds) {
      emit('svc:deadline', { remaining_seconds: seconds, level: seconds === 0 ? 'expired' : 'warning', deadline_at: cfg.deadline });
      if (seconds === 0 && !ended) expire();
    }
    if (latestPassed !== null) tick(latestPassed);
    thresholds.forEach(function (s) {
      // setTimeout overflows past 2^31-1 ms (about 24.8 days): such far ticks are left to a later visit.
      var delay = remaining - s * 1000;
      if (delay > 0 && delay < 2147483647) setTimeout(function () { tick(s); }, delay);
    });
  }

  window.addEventListener('message', function (event) {
    if (!cfg.parent_origin || event.origin !== cfg.parent_origin || event.source !== host) return;
    var m = event.data;
    if (!m || typeof m !== 'object' || m.version !== 2 || m.type !== 'svc:cancel' || typeof m.message_id !== 'string' || !m.payload) return;
    if (ended) return;
    emit('svc:cancel', { reason: String(m.payload.reason || 'host_cancelled'), cancelled_by: 'host' });
    var decline = state.allowed_actions.indexOf('decline') >= 0 ? 'decline' : state.allowed_actions.indexOf('deny') >= 0 ? 'deny' : null;
    if (decline) move({ action: decline });
  });

  $('svc-counter').addEventListener('submit', function (event) {
    event.preventDefault();
    var text = $('svc-counter-text').value.trim();
    if (!text) { $('svc-counter-text').focus(); return; }
    move({ action: 'counter', counter_proposal: { note: text } });
  });

  localizeTimes();
  var lastHeight = -1;
  function measure() {
    var height = Math.ceil(document.documentElement.getBoundingClientRect().height);
    if (height !== lastHeight) { lastHeight = height; emit('svc:resize', { height: height }); }
  }

  emit('svc:ready', { kind: cfg.envelope_kind, session_token: cfg.session_token, deadline_at: cfg.deadline, branding: cfg.branding, mode: cfg.mode, locale: cfg.locale });
  if (state.outcome) {
    ended = true;
    setBusy(false);
    var grantedLabels = state.outcome === 'granted' && granted ? labelsOf(granted) : [];
    announce(grantedLabels.length ? format('status_done_purposes', { names: listOf(grantedLabels) }) : format('status_done', { outcome: t['outcome_' + state.outcome] || state.outcome }));
  }
  else { announce(''); emit('svc:state', statePayload(null, state.status)); }
  render();
  if (typeof ResizeObserver === 'function') new ResizeObserver(measure).observe(document.documentElement);
  measure();
  if (!ended) deadlineTicks();
})();
`;
