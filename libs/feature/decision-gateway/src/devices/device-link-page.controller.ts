import { Controller, Get, Headers, Res } from '@nestjs/common';
import { Public } from '@svc/auth';
import { ApiDoc } from '@svc/server';
import type { FastifyReply } from 'fastify';
import { escapeHtml } from '../hosted/html';
import { contentSecurityPolicy, newNonce, sendHtml } from '../hosted/page-security';
import { PAGE_STYLES } from '../hosted/page-styles';
import { notificationLocale } from '../notifications/notification-texts';
import { DevicePush } from './device-push';

const WORDS = {
  en: {
    title: 'Link this phone',
    intro: 'Approval and signing requests will reach this phone as notifications. Allow notifications when the browser asks.',
    button: 'Link this phone',
    done: 'This phone is linked. You can close this page.',
    failed: 'The phone could not be linked. Make a new link code on your inbox page and try again.',
    unsupported: 'This browser cannot receive notifications.',
    off: 'Notifications to phones are not available on this platform. Your requests are always in your inbox.',
  },
  fr: {
    title: 'Lier ce téléphone',
    intro:
      "Les demandes d'approbation et de signature arriveront sur ce téléphone sous forme de notifications. Autorisez les notifications quand le navigateur le demande.",
    button: 'Lier ce téléphone',
    done: 'Ce téléphone est lié. Vous pouvez fermer cette page.',
    failed: "Le téléphone n'a pas pu être lié. Créez un nouveau code de liaison sur votre page de décisions et réessayez.",
    unsupported: 'Ce navigateur ne peut pas recevoir de notifications.',
    off: 'Les notifications vers les téléphones ne sont pas disponibles sur cette plateforme. Vos demandes restent toujours dans vos décisions.',
  },
} as const;

/**
 * The phone's service worker: shows each push as a notification (the message names no person, only
 * the kind of request) and opens the inbox when it is tapped.
 */
const SERVICE_WORKER = `'use strict';
self.addEventListener('push', function (event) {
  var data = {};
  try { data = event.data ? event.data.json() : {}; } catch (e) { data = {}; }
  var title = data.type === 'signature_requested' ? 'Signature requested' : 'Approval requested';
  event.waitUntil(self.registration.showNotification(title, { body: 'Open your inbox to answer.', tag: data.reference || undefined, data: { url: data.url || '/inbox' } }));
});
self.addEventListener('notificationclick', function (event) {
  event.notification.close();
  var url = (event.notification.data && event.notification.data.url) || '/inbox';
  if (new URL(url, self.location.origin).origin !== self.location.origin) url = '/inbox';
  event.waitUntil(self.clients.openWindow(url));
});
`;

/** The page script: reads the link code from the fragment, subscribes to push, registers the subscription. */
const PAGE_SCRIPT = `(function(){
'use strict';
var cfg = JSON.parse(document.getElementById('device-config').textContent);
var status = document.getElementById('device-status');
var button = document.getElementById('device-link');
function say(text){ status.textContent = text; }
var code = (/(?:^|[#&])code=([A-Za-z0-9_-]{43})(?:&|$)/.exec(location.hash) || [])[1];
if (!cfg.vapidPublicKey) { say(cfg.t.off); button.hidden = true; return; }
if (!code || !('serviceWorker' in navigator) || !('PushManager' in window)) { say(code ? cfg.t.unsupported : cfg.t.failed); button.hidden = true; return; }
history.replaceState(null, '', location.pathname);
function key(b64){ var s = atob(b64.replace(/-/g, '+').replace(/_/g, '/') + '==='.slice((b64.length + 3) % 4)); var a = new Uint8Array(s.length); for (var i = 0; i < s.length; i++) a[i] = s.charCodeAt(i); return a; }
button.addEventListener('click', function(){
  button.disabled = true;
  navigator.serviceWorker.register('/people/devices/sw.js', { scope: '/people/devices/' })
    .then(function(reg){ return navigator.serviceWorker.ready.then(function(){ return reg.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: key(cfg.vapidPublicKey) }); }); })
    .then(function(sub){
      return fetch('/api/v1/device_links/registrations', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ link_code: code, device_name: navigator.platform || undefined, subscription: sub.toJSON() }) });
    })
    .then(function(res){ say(res.status === 201 ? cfg.t.done : cfg.t.failed); })
    .catch(function(){ say(cfg.t.failed); button.disabled = false; });
});
})();`;

/**
 * The phone's side of a device link: `/people/devices/link#code=…` (the URL the inbox shows; the
 * code stays in the fragment, which browsers never send) and its service worker.
 */
@Controller('people/devices')
export class DeviceLinkPageController {
  constructor(private readonly push: DevicePush) {}

  @Get('link')
  @Public()
  @ApiDoc({
    tag: 'Device links',
    summary:
      "The phone's link page (HTML): reads the link code from the URL fragment, subscribes to Web Push and registers the subscription",
    response: 'The link page',
    produces: 'text/html',
  })
  page(@Headers('accept-language') acceptLanguage: string | undefined, @Res() reply: FastifyReply): FastifyReply {
    const locale = notificationLocale(acceptLanguage?.split(',')[0]);
    const t = WORDS[locale];
    const nonce = newNonce();
    const config = JSON.stringify({ vapidPublicKey: this.push.settings.vapidPublicKey, t }).replace(/</g, '\\u003c');
    const html = `<!doctype html>
<html lang="${locale}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(t.title)}</title><style nonce="${nonce}">${PAGE_STYLES}</style></head>
<body class="full"><main id="svc-main"><h1>${escapeHtml(t.title)}</h1><p>${escapeHtml(t.intro)}</p><button type="button" id="device-link">${escapeHtml(t.button)}</button><p id="device-status" role="status" aria-live="polite"></p></main>
<script nonce="${nonce}" id="device-config" type="application/json">${config}</script>
<script nonce="${nonce}">${PAGE_SCRIPT}</script></body></html>`;
    return sendHtml(reply, 200, html, `${contentSecurityPolicy(nonce, [])}; worker-src 'self'`, locale);
  }

  @Get('sw.js')
  @Public()
  @ApiDoc({
    tag: 'Device links',
    summary: "The phone's service worker (JavaScript): shows pushes as notifications",
    response: 'The service worker',
    produces: 'text/javascript',
  })
  serviceWorker(@Res() reply: FastifyReply): FastifyReply {
    return reply
      .code(200)
      .header('content-type', 'text/javascript; charset=utf-8')
      .header('cache-control', 'no-cache')
      .header('service-worker-allowed', '/people/devices/')
      .header('x-content-type-options', 'nosniff')
      .send(SERVICE_WORKER);
  }
}
