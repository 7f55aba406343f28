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
 */
export const CAPTURE_SNIPPET_JS = `(function () {
  'use strict';
  var TOKEN_INPUT = 'overturo_capture_token';
  var TIMEOUT_MS = 5000;
  var script = document.currentScript;
  var base = script && script.getAttribute('data-api-base') ? script.getAttribute('data-api-base') : (script ? new URL(script.src).origin : '');
  var listeners = [];

  function OverturoCaptureError(message, statusCode, body) {
    this.name = 'OverturoCaptureError';
    this.message = message;
    this.statusCode = statusCode;
    this.body = body;
  }
  OverturoCaptureError.prototype = Object.create(Error.prototype);
  OverturoCaptureError.prototype.constructor = OverturoCaptureError;

  function controlType(el) {
    return el.tagName === 'INPUT' ? String(el.type || 'text').toLowerCase() : el.tagName.toLowerCase();
  }

  function report(form, error) {
    var named = form.getAttribute('data-overturo-onerror');
    var callbacks = listeners.slice();
    if (named && typeof window[named] === 'function') callbacks.push(window[named]);
    for (var i = 0; i < callbacks.length; i++) {
      try { callbacks[i](error, form); } catch (ignored) { /* a failing callback must not block the form */ }
    }
  }

  function hiddenInput(form) {
    var input = form.querySelector('input[name="' + TOKEN_INPUT + '"]');
    if (!input) {
      input = document.createElement('input');
      input.type = 'hidden';
      input.name = TOKEN_INPUT;
      form.appendChild(input);
    }
    return input;
  }

  function bind(form) {
    if (form.__overturoBound) return;
    form.__overturoBound = true;
    var hidden = hiddenInput(form);
    form.addEventListener('submit', function (event) {
      if (form.__overturoSubmitting) return;
      event.preventDefault();
      var key = form.getAttribute('data-overturo-key') || (script && script.getAttribute('data-publishable-key')) || '';
      var controls = form.querySelectorAll('[data-overturo-purpose]');
      var fields = [];
      for (var i = 0; i < controls.length; i++) {
        var el = controls[i];
        fields.push({ purpose: el.getAttribute('data-overturo-purpose'), control: controlType(el), checked: !!el.checked, default_checked: !!el.defaultChecked, required: !!el.required });
      }
      var finished = false;
      function submitNow() {
        if (finished) return;
        finished = true;
        form.__overturoSubmitting = true;
        HTMLFormElement.prototype.submit.call(form);
      }
      var controller = typeof AbortController === 'function' ? new AbortController() : null;
      var timer = setTimeout(function () { if (controller) controller.abort(); }, TIMEOUT_MS);
      fetch(base + '/capture/v1/captures?publishable_key=' + encodeURIComponent(key), {
        method: 'POST',
        mode: 'cors',
        credentials: 'omit',
        headers: { 'content-type': 'application/json', 'x-publishable-key': key },
        body: JSON.stringify({ flow_id: form.getAttribute('data-overturo-flow'), channel: form.getAttribute('data-overturo-channel') || 'form_capture_browser', fields: fields }),
        signal: controller ? controller.signal : undefined
      }).then(function (response) {
        return response.json().catch(function () { return null; }).then(function (body) {
          if (!response.ok || !body || typeof body.capture_token !== 'string') {
            throw new OverturoCaptureError((body && body.message) || ('capture refused with HTTP ' + response.status), response.status, body);
          }
          hidden.value = body.capture_token;
        });
      }).catch(function (error) {
        hidden.value = '';
        report(form, error instanceof OverturoCaptureError ? error : new OverturoCaptureError('capture service unreachable: ' + (error && error.message ? error.message : String(error)), 0, null));
      }).then(function () {
        clearTimeout(timer);
        submitNow();
      });
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
