/**
 * Browser SDK of the decision service: `open({ token, mode })` for embed / popup / redirect, the
 * `<svc-decision token="…">` custom element, typed postMessage v2 events, and `createSession`
 * for publishable-key minting. Dependency-free; compiled by tsc into one ES module served at
 * `/cdn/v1/svc.js` (see README.md).
 *
 * Threat model: any window can post to the host page. Before an event reaches host code the SDK
 * checks that it comes from the service's origin, from the very frame or popup it opened, and
 * carries a well-formed v2 envelope (six fields, `version` 2, one of the seven `svc:` types, a
 * UUID v4 `message_id`). Even then `svc:complete` is a prompt to verify server-side (exchange
 * the `exchange_token`), not proof of a decision.
 */

/** postMessage protocol version this SDK speaks. */
export const PROTOCOL_VERSION = 2;

/** The seven message types. */
export const MESSAGE_TYPES = ['svc:ready', 'svc:state', 'svc:complete', 'svc:cancel', 'svc:error', 'svc:resize', 'svc:deadline'] as const;
export type SvcMessageType = (typeof MESSAGE_TYPES)[number];
export type SvcKind = 'consent' | 'approval';
export type DeliveryMode = 'embed' | 'popup' | 'redirect';

export interface ReadyPayload {
  kind: SvcKind;
  session_token: string;
  deadline_at: string;
  branding: { name: string | null; logo_url: string | null };
  mode: string;
  locale: string;
}
export interface StatePayload {
  from: string | null;
  to: string;
  /** Consent only. */
  step_index?: number;
  total_steps?: number;
  /** Approval (and signing) only. */
  kind_payload?: { decision_kind: string; trigger_type: string | null; allowed_actions: string[] };
}
export interface CompletePayload {
  outcome: 'granted' | 'declined' | 'approved' | 'denied';
  exchange_token: string | null;
  completed_at: string;
}
export interface CancelPayload {
  reason: string;
  cancelled_by: 'user' | 'host';
}
export interface ErrorPayload {
  code: string;
  message: string;
  fatal: boolean;
  recoverable_via: 'retry' | 'reload' | 'none';
}
export interface ResizePayload {
  /** Content height in CSS pixels. */
  height: number;
}
export interface DeadlinePayload {
  remaining_seconds: 30 | 15 | 5 | 0;
  level: 'warning' | 'expired';
  deadline_at: string;
}

/** Payload type of each message type. */
export interface SvcPayloads {
  'svc:ready': ReadyPayload;
  'svc:state': StatePayload;
  'svc:complete': CompletePayload;
  'svc:cancel': CancelPayload;
  'svc:error': ErrorPayload;
  'svc:resize': ResizePayload;
  'svc:deadline': DeadlinePayload;
}

/** The six-field v2 envelope. `ts` is the service's clock, not the browser's. */
export interface SvcEnvelope<T extends SvcMessageType = SvcMessageType> {
  type: T;
  kind: SvcKind;
  version: 2;
  payload: SvcPayloads[T];
  ts: string;
  message_id: string;
}

/** An HTTP failure of the service: `statusCode` and the parsed response `body` (error envelope). */
export class SvcError extends Error {
  constructor(
    message: string,
    readonly statusCode: number,
    readonly body: unknown,
  ) {
    super(message);
    this.name = 'SvcError';
  }
}

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** True for a well-formed v2 envelope (the checks the SDK runs before any event reaches the host). */
export function isSvcEnvelope(value: unknown): value is SvcEnvelope {
  if (typeof value !== 'object' || value === null) return false;
  const m = value as Record<string, unknown>;
  return (
    Object.keys(m).length === 6 &&
    typeof m['type'] === 'string' &&
    m['type'].startsWith('svc:') &&
    (MESSAGE_TYPES as readonly string[]).includes(m['type']) &&
    (m['kind'] === 'consent' || m['kind'] === 'approval') &&
    m['version'] === PROTOCOL_VERSION &&
    typeof m['payload'] === 'object' &&
    m['payload'] !== null &&
    typeof m['ts'] === 'string' &&
    !Number.isNaN(Date.parse(m['ts'])) &&
    typeof m['message_id'] === 'string' &&
    UUID_V4.test(m['message_id'])
  );
}

let configuredBaseUrl: string | undefined;

/** Sets the service base URL (e.g. `https://us.example.com`) used when a call names none. */
export function configure(options: { baseUrl: string }): void {
  configuredBaseUrl = options.baseUrl;
}

function serviceBase(explicit?: string | null): string {
  const fromScript = document.querySelector<HTMLScriptElement>('script[src*="/cdn/v1/svc.js"]')?.src;
  const base = explicit || configuredBaseUrl || fromScript;
  if (!base) throw new SvcError('No service base URL: pass baseUrl, call configure() or load the SDK from /cdn/v1/svc.js', 0, null);
  return new URL(base).origin;
}

/** Options of `open`. */
export interface OpenOptions {
  /** The session token minted server-side (`dts_…`). */
  token: string;
  mode: DeliveryMode;
  /** Service origin; default: configure() or the origin the SDK was loaded from. */
  baseUrl?: string;
  /** embed: the element the iframe goes into (default document.body). */
  container?: HTMLElement;
  /** redirect: where the page lands afterwards (an allowed origin; default this page, without query). */
  redirectUri?: string;
}

type Listener<T extends SvcMessageType> = (message: SvcEnvelope<T>) => void;

/**
 * A presented decision. Listen with `on('svc:complete', …)` (typed) or as DOM events (CustomEvent
 * whose `detail` is the envelope); `cancel()` sends svc:cancel to the frame; `close()` removes it.
 */
export class DecisionHandle extends EventTarget {
  /** embed: the iframe. */
  readonly frame: HTMLIFrameElement | null;
  /** popup: the popup window. */
  readonly popup: Window | null;
  private readonly serviceOrigin: string;
  /** Envelope kind learnt from svc:ready; used for host → frame messages. */
  private kind: SvcKind = 'consent';
  private readonly onMessage: (event: MessageEvent) => void;

  constructor(serviceOrigin: string, frame: HTMLIFrameElement | null, popup: Window | null) {
    super();
    this.serviceOrigin = serviceOrigin;
    this.frame = frame;
    this.popup = popup;
    this.onMessage = (event) => this.receive(event);
    window.addEventListener('message', this.onMessage);
  }

  /** Typed subscription; returns the unsubscribe function. */
  on<T extends SvcMessageType>(type: T, listener: Listener<T>): () => void {
    const wrapped = (event: Event) => listener((event as CustomEvent<SvcEnvelope<T>>).detail);
    this.addEventListener(type, wrapped);
    return () => this.removeEventListener(type, wrapped);
  }

  /** Host-initiated cancel (svc:cancel, host → frame): the frame declines the session. */
  cancel(reason = 'host_cancelled'): void {
    const target = this.source();
    if (!target) return;
    const message = {
      type: 'svc:cancel',
      kind: this.kind,
      version: PROTOCOL_VERSION,
      payload: { reason, cancelled_by: 'host' },
      ts: new Date().toISOString(),
      message_id: uuid(),
    };
    target.postMessage(message, this.serviceOrigin);
  }

  /** Stops listening and removes the iframe / closes the popup. */
  close(): void {
    window.removeEventListener('message', this.onMessage);
    this.frame?.remove();
    if (this.popup && !this.popup.closed) this.popup.close();
  }

  private source(): Window | null {
    return this.frame?.contentWindow ?? this.popup;
  }

  private receive(event: MessageEvent): void {
    if (event.origin !== this.serviceOrigin) return;
    const source = this.source();
    if (!source || event.source !== source) return;
    if (!isSvcEnvelope(event.data)) return;
    const message = event.data;
    if (message.type === 'svc:ready') this.kind = message.kind;
    if (message.type === 'svc:resize' && this.frame) this.frame.style.height = `${(message.payload as ResizePayload).height}px`;
    this.dispatchEvent(new CustomEvent(message.type, { detail: message }));
  }
}

function uuid(): string {
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = ((b[6] ?? 0) & 0x0f) | 0x40;
  b[8] = ((b[8] ?? 0) & 0x3f) | 0x80;
  const h = Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

function checkedToken(token: string): string {
  if (!/^(dts_)?[A-Za-z0-9_-]{43}$/.test(token)) throw new SvcError('token is not a decision session token', 0, null);
  return token;
}

/**
 * Presents a decision. `embed` adds an iframe (auto-resized on svc:resize); `popup` opens a
 * window whose page talks to its opener; `redirect` navigates away (the result lands on
 * `redirectUri`, `?error=access_denied` on a decline) and returns nothing.
 */
export function open(options: OpenOptions & { mode: 'redirect' }): void;
export function open(options: OpenOptions): DecisionHandle;
export function open(options: OpenOptions): DecisionHandle | void {
  const base = serviceBase(options.baseUrl);
  const token = encodeURIComponent(checkedToken(options.token));
  const here = encodeURIComponent(window.location.origin);
  if (options.mode === 'redirect') {
    const back = options.redirectUri ?? `${window.location.origin}${window.location.pathname}`;
    window.location.assign(`${base}/decisions/${token}?redirect_uri=${encodeURIComponent(back)}`);
    return;
  }
  if (options.mode === 'popup') {
    const popup = window.open(`${base}/decisions/${token}?origin=${here}`, 'svc-decision', 'popup,width=480,height=720');
    if (!popup) throw new SvcError('The popup was blocked: call open() from a click handler', 0, null);
    return new DecisionHandle(base, null, popup);
  }
  const frame = document.createElement('iframe');
  frame.src = `${base}/decisions/${token}/embed?origin=${here}`;
  frame.title = 'Decision';
  frame.style.width = '100%';
  frame.style.border = '0';
  frame.setAttribute('allow', '');
  const handle = new DecisionHandle(base, frame, null);
  (options.container ?? document.body).appendChild(frame);
  return handle;
}

/** Options of `createSession` (publishable key, consent only; the origin must be allowed). */
export interface CreateSessionOptions {
  publishableKey: string;
  flowId: string;
  deliveryMode?: DeliveryMode;
  /** Default: this page's origin. */
  embedOrigin?: string;
  /**
   * Who the person is: a `pas_…` value the application's server obtained with its API token
   * (POST /api/v1/decisions/principal_assertions). Without it the session is unbound and its
   * decision is recorded for nobody. The browser can never name the person itself.
   */
  principalAssertion?: string;
  baseUrl?: string;
}

/** Mints a consent session from the browser; throws SvcError with the status and body on failure. */
export async function createSession(
  options: CreateSessionOptions,
): Promise<{ session_token: string; embed_url: string | null; decision_url: string; deadline: string }> {
  const base = serviceBase(options.baseUrl);
  const response = await fetch(`${base}/api/v1/decisions?publishable_key=${encodeURIComponent(options.publishableKey)}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-publishable-key': options.publishableKey },
    body: JSON.stringify({
      kind: 'consent',
      flow_id: options.flowId,
      delivery_mode: options.deliveryMode ?? 'embed',
      embed_origin: options.embedOrigin ?? window.location.origin,
      ...(options.principalAssertion !== undefined ? { principal_assertion: options.principalAssertion } : {}),
    }),
  });
  const text = await response.text();
  let body: unknown = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = text;
  }
  if (!response.ok) {
    const message =
      typeof body === 'object' && body !== null && typeof (body as { message?: unknown }).message === 'string'
        ? (body as { message: string }).message
        : `HTTP ${response.status}`;
    throw new SvcError(message, response.status, body);
  }
  return body as { session_token: string; embed_url: string | null; decision_url: string; deadline: string };
}

/**
 * Base class of the custom element. A server (Node, an SSR framework) has no `HTMLElement`: there the
 * SDK still imports (for its types, `isSvcEnvelope` or `createSession`) and the element is never
 * defined, so nothing touches the DOM at import time.
 */
const ElementBase: typeof HTMLElement = typeof HTMLElement === 'undefined' ? (class {} as unknown as typeof HTMLElement) : HTMLElement;

/**
 * `<svc-decision token="dts_…" base-url="https://…">`: embeds the decision and re-dispatches each
 * verified message on the element as a CustomEvent named after its type (`detail` = envelope),
 * bubbling and composed. Changing `token` or `base-url` re-embeds; anything else keeps the frame.
 */
export class SvcDecisionElement extends ElementBase {
  static readonly observedAttributes = ['token', 'base-url'];
  private handle: DecisionHandle | null = null;
  /** The token and base URL of the embedded frame, so the same attributes never embed twice. */
  private mountedFor: string | null = null;

  connectedCallback(): void {
    this.mount();
  }

  disconnectedCallback(): void {
    this.handle?.close();
    this.handle = null;
    this.mountedFor = null;
  }

  /**
   * When an element already in the page is upgraded, the browser calls this for each attribute and
   * then connectedCallback: both reach mount(), which embeds only once for the same attributes.
   */
  attributeChangedCallback(): void {
    if (this.isConnected) this.mount();
  }

  /** Host-initiated cancel of the embedded decision. */
  cancel(reason?: string): void {
    this.handle?.cancel(reason);
  }

  private mount(): void {
    const token = this.getAttribute('token');
    const baseUrl = this.getAttribute('base-url') ?? undefined;
    const wanted = token ? `${token} ${baseUrl ?? ''}` : null;
    if (wanted !== null && wanted === this.mountedFor) return;
    this.handle?.close();
    this.handle = null;
    this.mountedFor = null;
    if (!token || wanted === null) return;
    try {
      const handle = open({ token, mode: 'embed', baseUrl, container: this });
      for (const type of MESSAGE_TYPES) {
        handle.addEventListener(type, (event) => {
          this.dispatchEvent(new CustomEvent(type, { detail: (event as CustomEvent<SvcEnvelope>).detail, bubbles: true, composed: true }));
        });
      }
      this.handle = handle;
      this.mountedFor = wanted;
    } catch (error) {
      this.dispatchEvent(new CustomEvent('svc:sdk-error', { detail: error, bubbles: true, composed: true }));
    }
  }
}

if (typeof customElements !== 'undefined' && !customElements.get('svc-decision')) {
  customElements.define('svc-decision', SvcDecisionElement);
}
