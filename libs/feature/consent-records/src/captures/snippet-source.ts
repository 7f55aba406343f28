import { CAPTURE_BROWSER_CORE_JS } from './capture-browser-core';

/**
 * The capture snippet served at GET /capture/v1/snippet.js: plain ES5-compatible JavaScript, no
 * dependencies. It binds an organisation's own form (`data-overturo-flow`, publishable key in
 * `data-overturo-key` or on the script tag as `data-publishable-key`) and its controls
 * (`data-overturo-purpose="<purpose key>"`). On submit it reports each control's state
 * (checked, ticked by default, required, control type) to POST /capture/v1/captures and writes the
 * returned capture token into the hidden input `overturo_capture_token` (SDK-fixed name), then
 * submits the form. If the service is unreachable, slow (5 s) or refuses, the form still submits
 * (with an empty token) and the error callbacks fire with an OverturoCaptureError carrying
 * `statusCode` (0 when unreachable) and the response `body` (spec, Other rules).
 * Callbacks: `OverturoCapture.onError(fn)` or the form attribute `data-overturo-onerror="<global fn name>"`.
 * The token, request and failure handling are shared with the consent field (capture-browser-core).
 */
export const CAPTURE_SNIPPET_JS = `(function () {
  'use strict';
${CAPTURE_BROWSER_CORE_JS}
  var script = document.currentScript;
  var base = script && script.getAttribute('data-api-base') ? script.getAttribute('data-api-base') : (script ? new URL(script.src).origin : '');
  var listeners = [];

  function controlType(el) {
    return el.tagName === 'INPUT' ? String(el.type || 'text').toLowerCase() : el.tagName.toLowerCase();
  }

  function bind(form) {
    if (form.__overturoBound) return;
    form.__overturoBound = true;
    captureTokenInput(form);
    interceptSubmit(form, function (submitNow) {
      var key = form.getAttribute('data-overturo-key') || (script && script.getAttribute('data-publishable-key')) || '';
      var controls = form.querySelectorAll('[data-overturo-purpose]');
      var fields = [];
      for (var i = 0; i < controls.length; i++) {
        var el = controls[i];
        fields.push({ purpose: el.getAttribute('data-overturo-purpose'), control: controlType(el), checked: !!el.checked, default_checked: !!el.defaultChecked, required: !!el.required });
      }
      var payload = { flow_id: form.getAttribute('data-overturo-flow'), channel: form.getAttribute('data-overturo-channel') || 'form_capture_browser', fields: fields };
      captureThenSubmit(form, base, key, payload, function (error) { reportCaptureError(form, error, listeners); }, submitNow);
    });
  }

  function bindAll() {
    var forms = document.querySelectorAll('form[data-overturo-flow]');
    for (var i = 0; i < forms.length; i++) bind(forms[i]);
  }

  window.OverturoCapture = { bind: bind, bindAll: bindAll, onError: function (fn) { listeners.push(fn); }, CaptureError: OverturoCaptureError };
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', bindAll);
  else bindAll();
})();
`;
