/**
 * Browser code shared by the capture snippet (snippet.js) and the service-rendered consent field
 * (field.js): plain ES5-compatible JavaScript pasted inside each script's own function scope, so
 * both keep one contract for the capture token and for failures. It defines:
 * - `OverturoCaptureError(message, statusCode, body)`: `statusCode` 0 when the service is
 *   unreachable or slower than TIMEOUT_MS, otherwise the HTTP status; `body` the response body.
 * - `reportCaptureError(form, error, listeners)`: calls every registered listener and the global
 *   function named by the form's `data-overturo-onerror`; a throwing callback never blocks the form.
 * - `captureTokenInput(form)`: the hidden input `overturo_capture_token` (SDK-fixed name).
 * - `requestJson(url, key, what, init, accept)`: a CORS request authorized by the publishable key
 *   (header, plus the `publishable_key` query parameter that names the application to the preflight).
 * - `interceptSubmit(form, onSubmit)`: holds the form's submission until `onSubmit` calls the
 *   `submitNow` it receives, which submits natively exactly once.
 * - `captureThenSubmit(form, base, key, payload, onError, submitNow)`: POST /capture/v1/captures,
 *   writes the token (empty on any failure, and `onError` fires), then always submits the form.
 */
export const CAPTURE_BROWSER_CORE_JS = `
  var TOKEN_INPUT = 'overturo_capture_token';
  var TIMEOUT_MS = 5000;

  function OverturoCaptureError(message, statusCode, body) {
    this.name = 'OverturoCaptureError';
    this.message = message;
    this.statusCode = statusCode;
    this.body = body;
  }
  OverturoCaptureError.prototype = Object.create(Error.prototype);
  OverturoCaptureError.prototype.constructor = OverturoCaptureError;

  function reportCaptureError(form, error, listeners) {
    var named = form ? form.getAttribute('data-overturo-onerror') : null;
    var callbacks = listeners.slice();
    if (named && typeof window[named] === 'function') callbacks.push(window[named]);
    for (var i = 0; i < callbacks.length; i++) {
      try { callbacks[i](error, form); } catch (ignored) { /* a failing callback must not block the form */ }
    }
  }

  function captureTokenInput(form) {
    var input = form.querySelector('input[name="' + TOKEN_INPUT + '"]');
    if (!input) {
      input = document.createElement('input');
      input.type = 'hidden';
      input.name = TOKEN_INPUT;
      form.appendChild(input);
    }
    return input;
  }

  function requestJson(url, key, what, init, accept) {
    var controller = typeof AbortController === 'function' ? new AbortController() : null;
    var timer = setTimeout(function () { if (controller) controller.abort(); }, TIMEOUT_MS);
    var headers = { 'x-publishable-key': key };
    if (init.body !== undefined) headers['content-type'] = 'application/json';
    return fetch(url + (url.indexOf('?') < 0 ? '?' : '&') + 'publishable_key=' + encodeURIComponent(key), {
      method: init.method,
      mode: 'cors',
      credentials: 'omit',
      headers: headers,
      body: init.body,
      signal: controller ? controller.signal : undefined
    }).then(function (response) {
      return response.json().catch(function () { return null; }).then(function (body) {
        if (!response.ok || !body || !accept(body)) {
          throw new OverturoCaptureError((body && body.message) || (what + ' refused with HTTP ' + response.status), response.status, body);
        }
        return body;
      });
    }).catch(function (error) {
      throw error instanceof OverturoCaptureError ? error : new OverturoCaptureError(what + ' service unreachable: ' + (error && error.message ? error.message : String(error)), 0, null);
    }).then(function (body) {
      clearTimeout(timer);
      return body;
    }, function (error) {
      clearTimeout(timer);
      throw error;
    });
  }

  function interceptSubmit(form, onSubmit) {
    form.addEventListener('submit', function (event) {
      if (form.__overturoSubmitting) return;
      event.preventDefault();
      if (form.__overturoPending) return;
      form.__overturoPending = true;
      onSubmit(function submitNow() {
        if (form.__overturoSubmitting) return;
        form.__overturoSubmitting = true;
        HTMLFormElement.prototype.submit.call(form);
      });
    });
  }

  function captureThenSubmit(form, base, key, payload, onError, submitNow) {
    var hidden = captureTokenInput(form);
    requestJson(base + '/capture/v1/captures', key, 'capture', { method: 'POST', body: JSON.stringify(payload) }, function (body) {
      return typeof body.capture_token === 'string';
    }).then(function (body) {
      hidden.value = body.capture_token;
    }, function (error) {
      hidden.value = '';
      onError(error);
    }).then(submitNow, submitNow);
  }
`;
