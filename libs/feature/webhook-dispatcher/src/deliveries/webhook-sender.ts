import { Agent, request } from 'undici';
import type { AttemptResult } from './retry-schedule';

/** Connect timeout of an attempt, ms (spec, Limits: 10 s). */
export const CONNECT_TIMEOUT_MS = 10_000;
/** Read timeout of an attempt (response headers, then each body chunk), ms (spec, Limits: 15 s). */
export const READ_TIMEOUT_MS = 15_000;
/** Response bytes read (then discarded) before the connection is dropped; receivers answer small bodies. */
const MAX_RESPONSE_BYTES = 64 * 1024;

/** Error codes of undici mapped to the short, stable texts the delivery log shows. */
const ERROR_TEXT: Readonly<Record<string, string>> = {
  UND_ERR_CONNECT_TIMEOUT: 'connect_timeout',
  UND_ERR_HEADERS_TIMEOUT: 'read_timeout',
  UND_ERR_BODY_TIMEOUT: 'read_timeout',
  ECONNREFUSED: 'connection_refused',
  ECONNRESET: 'connection_reset',
  ENOTFOUND: 'dns_not_found',
  EAI_AGAIN: 'dns_unavailable',
  UND_ERR_SOCKET: 'connection_closed',
};

/**
 * POSTs webhook bodies with undici over a shared keep-alive agent. Never follows redirects, never
 * throws: a response is its status code, anything else a short error text.
 */
export class WebhookSender {
  private readonly agent: Agent;

  constructor(options: { connections?: number; connectTimeoutMs?: number; readTimeoutMs?: number } = {}) {
    this.agent = new Agent({
      connect: { timeout: options.connectTimeoutMs ?? CONNECT_TIMEOUT_MS },
      headersTimeout: options.readTimeoutMs ?? READ_TIMEOUT_MS,
      bodyTimeout: options.readTimeoutMs ?? READ_TIMEOUT_MS,
      connections: options.connections ?? 256,
      keepAliveTimeout: 4_000,
    });
  }

  async post(url: string, headers: Record<string, string>, body: string): Promise<AttemptResult> {
    try {
      const response = await request(url, { method: 'POST', headers, body, dispatcher: this.agent });
      await response.body.dump({ limit: MAX_RESPONSE_BYTES }).catch(() => undefined);
      return { statusCode: response.statusCode };
    } catch (error) {
      const code = (error as { code?: string; cause?: { code?: string } }).code ?? (error as { cause?: { code?: string } }).cause?.code ?? '';
      return { error: ERROR_TEXT[code] ?? (code ? `network_error:${code}` : 'network_error') };
    }
  }

  async close(): Promise<void> {
    await this.agent.close().catch(() => undefined);
  }
}
