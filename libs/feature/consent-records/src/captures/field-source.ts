import { CAPTURE_BROWSER_CORE_JS } from './capture-browser-core';

/** Tag name of the service-rendered consent field. */
export const CONSENT_FIELD_TAG = 'svc-consent-field';

/**
 * The consent field script served at GET /capture/v1/field.js. It defines the custom element
 * `<svc-consent-field flow="flw_…" publishable-key="pk_…">`, placed inside the organisation's own
 * `<form>`. On connection it fetches the flow's rendering (GET /capture/v1/fields/:flow_id,
 * publishable key + allowed Origin) and shows it: the flow's wording with one unticked, optional
 * checkbox per consent purpose. On submit it creates a capture with channel
 * `embedded_field_browser` and the rendering digest, writes the token into the hidden input
 * `overturo_capture_token`, then submits the form. Failures follow the snippet's contract: the
 * form still submits (empty token) and the error callbacks fire with an OverturoCaptureError
 * (`statusCode` 0 when unreachable). Callbacks: `SvcConsentField.onError(fn)`, the form attribute
 * `data-overturo-onerror="<global fn name>"`, and the `capture-error` event on the element
 * (bubbles; `detail` is the error). The element gets `data-state` loading, ready or failed, and
 * fires `ready` once rendered. API base: the element's `api-base`, the script tag's
 * `data-api-base`, or the script's own origin.
 */
export const CONSENT_FIELD_JS = `(function () {
  'use strict';
${CAPTURE_BROWSER_CORE_JS}
  var TAG = '${CONSENT_FIELD_TAG}';
  if (!window.customElements || window.customElements.get(TAG)) return;
  var script = document.currentScript;
  var scriptBase = script && script.getAttribute('data-api-base') ? script.getAttribute('data-api-base') : (script ? new URL(script.src).origin : '');
  var listeners = [];

  function controlType(el) {
    return el.tagName === 'INPUT' ? String(el.type || 'text').toLowerCase() : el.tagName.toLowerCase();
  }

  function fail(element, form, error) {
    try { element.dispatchEvent(new CustomEvent('capture-error', { bubbles: true, detail: error })); } catch (ignored) { /* the form must still submit */ }
    reportCaptureError(form, error, listeners);
  }

  class SvcConsentField extends HTMLElement {
    connectedCallback() {
      if (this.__svcStarted) return;
      this.__svcStarted = true;
      var element = this;
      var form = element.closest('form');
      var base = element.getAttribute('api-base') || scriptBase;
      var key = element.getAttribute('publishable-key') || '';
      var flow = element.getAttribute('flow') || '';
      var rendering = null;
      element.setAttribute('data-state', 'loading');
      if (!form) {
        element.setAttribute('data-state', 'failed');
        fail(element, null, new OverturoCaptureError(TAG + ' must be placed inside a form', 0, null));
        return;
      }
      captureTokenInput(form);
      requestJson(base + '/capture/v1/fields/' + encodeURIComponent(flow), key, 'consent field', { method: 'GET' }, function (body) {
        return typeof body.html === 'string' && typeof body.rendering_digest === 'string';
      }).then(function (body) {
        rendering = body;
        element.innerHTML = body.html;
        element.setAttribute('data-state', 'ready');
        element.dispatchEvent(new CustomEvent('ready', { bubbles: true, detail: { flow_id: body.flow_id, flow_version: body.flow_version } }));
      }, function (error) {
        element.setAttribute('data-state', 'failed');
        fail(element, form, error);
      });

      interceptSubmit(form, function (submitNow) {
        if (!rendering) {
          captureTokenInput(form).value = '';
          fail(element, form, new OverturoCaptureError('no consent captured: the consent field was not rendered', 0, null));
          submitNow();
          return;
        }
        var controls = element.querySelectorAll('[data-svc-purpose]');
        var fields = [];
        for (var i = 0; i < controls.length; i++) {
          var el = controls[i];
          fields.push({ purpose: el.getAttribute('data-svc-purpose'), control: controlType(el), checked: !!el.checked, default_checked: !!el.defaultChecked, required: !!el.required });
        }
        var payload = { flow_id: flow, channel: 'embedded_field_browser', rendering_digest: rendering.rendering_digest, fields: fields };
        captureThenSubmit(form, base, key, payload, function (error) { fail(element, form, error); }, submitNow);
      });
    }
  }

  window.SvcConsentField = { onError: function (fn) { listeners.push(fn); }, CaptureError: OverturoCaptureError };
  window.customElements.define(TAG, SvcConsentField);
})();
`;
