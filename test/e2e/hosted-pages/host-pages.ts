import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A third-party host site for the browser tests, on its own origin (`http://localhost:<port>`,
 * another site than the gateway's `http://127.0.0.1:<port>`, so the frame is cross-site). Every
 * page records what reaches it in `window.__messages` as `{ origin, data }`.
 */
export interface HostSite {
  origin: string;
  close(): Promise<void>;
}

const RECORDER = `window.__messages = [];
function record(origin, data) { window.__messages.push({ origin: origin, data: data }); }`;

function page(title: string, body: string): string {
  return `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title></head><body>${body}</body></html>`;
}

/** Pages: /raw (bare iframe + message listener), /element (custom element), /popup, /redirect, /done. */
export async function startHostSite(gateway: string): Promise<HostSite> {
  let origin = '';
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', origin);
    const token = url.searchParams.get('token') ?? '';
    const sdk = `${gateway}/cdn/v1/svc.js`;
    let html: string;
    switch (url.pathname) {
      case '/raw':
        html = page(
          'raw',
          `<script>${RECORDER}
window.addEventListener('message', function (e) { record(e.origin, e.data); });
var f = document.createElement('iframe'); f.id = 'frame'; f.style.width = '100%'; f.style.height = '600px';
f.src = ${JSON.stringify(`${gateway}/decisions/`)} + ${JSON.stringify(token)} + '/embed?origin=' + encodeURIComponent(location.origin);
document.body.appendChild(f);
window.__cancel = function () { f.contentWindow.postMessage({ type: 'svc:cancel', kind: 'consent', version: 2, payload: { reason: 'host_closed', cancelled_by: 'host' }, ts: new Date().toISOString(), message_id: crypto.randomUUID() }, ${JSON.stringify(gateway)}); };
</script>`,
        );
        break;
      case '/element':
        html = page(
          'element',
          `<script>${RECORDER}</script>
<svc-decision id="el" token="${token}" base-url="${gateway}"></svc-decision>
<script type="module">
import { SvcError } from ${JSON.stringify(sdk)};
window.__sdkLoaded = typeof SvcError === 'function';
const el = document.getElementById('el');
for (const t of ['svc:ready','svc:state','svc:complete','svc:cancel','svc:error','svc:resize','svc:deadline']) el.addEventListener(t, (e) => record(${JSON.stringify(gateway)}, e.detail));
window.__raw = [];
window.addEventListener('message', (e) => window.__raw.push(e.origin));
</script>`,
        );
        break;
      case '/popup':
        html = page(
          'popup',
          `<script>${RECORDER}</script><button id="go">Decide</button>
<script type="module">
import { open, MESSAGE_TYPES } from ${JSON.stringify(sdk)};
document.getElementById('go').addEventListener('click', () => {
  const handle = open({ token: ${JSON.stringify(token)}, mode: 'popup', baseUrl: ${JSON.stringify(gateway)} });
  for (const t of MESSAGE_TYPES) handle.on(t, (m) => record(${JSON.stringify(gateway)}, m));
});
window.__ready = true;
</script>`,
        );
        break;
      case '/redirect':
        html = page(
          'redirect',
          `<button id="go">Decide</button>
<script type="module">
import { open } from ${JSON.stringify(sdk)};
document.getElementById('go').addEventListener('click', () => open({ token: ${JSON.stringify(token)}, mode: 'redirect', baseUrl: ${JSON.stringify(gateway)}, redirectUri: location.origin + '/done' }));
window.__ready = true;
</script>`,
        );
        break;
      case '/sdk-errors':
        html = page(
          'sdk-errors',
          `<script type="module">
import { createSession, SvcError } from ${JSON.stringify(sdk)};
window.__tryCreate = async (publishableKey, flowId) => {
  try { const s = await createSession({ publishableKey, flowId, baseUrl: ${JSON.stringify(gateway)} }); return { ok: true, token: s.session_token }; }
  catch (e) { return { ok: false, isSvcError: e instanceof SvcError, statusCode: e.statusCode, body: e.body, name: e.name, message: String(e.message) }; }
};
window.__ready = true;
</script>`,
        );
        break;
      case '/done':
        html = page('done', '<p id="done">back on the host</p>');
        break;
      default:
        res.writeHead(404).end();
        return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html);
  });
  await new Promise<void>((resolve) => server.listen(0, resolve));
  origin = `http://localhost:${(server.address() as AddressInfo).port}`;
  return { origin, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}
