import { isIP } from 'node:net';
import { Agent, buildConnector, request } from 'undici';
import type { TargetEnvironment } from '../targets/address-policy';
import { bareHost, firstRefused, guardedLookup, resolveAllWithDns, TargetRefusedError, type ResolveAll } from '../targets/target-check';
import { REFUSED_TARGET_ERROR, type AttemptResult } from './retry-schedule';

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

export interface WebhookSenderOptions {
  connections?: number;
  connectTimeoutMs?: number;
  readTimeoutMs?: number;
  /** Host name resolution; node:dns unless a test stands in. */
  resolveAll?: ResolveAll;
}

/**
 * POSTs webhook bodies with undici over shared keep-alive agents, one per environment. Never
 * follows redirects, never throws: a response is its status code, anything else a short error text.
 * Every new connection is checked against the environment's address policy: a literal address as
 * is, a name through a guarded lookup whose checked addresses are the only ones the socket may use.
 */
export class WebhookSender {
  private readonly agents: Record<TargetEnvironment, Agent>;

  constructor(options: WebhookSenderOptions = {}) {
    this.agents = { development: this.agentFor('development', options), production: this.agentFor('production', options) };
  }

  private agentFor(environment: TargetEnvironment, options: WebhookSenderOptions): Agent {
    const connector = buildConnector({
      timeout: options.connectTimeoutMs ?? CONNECT_TIMEOUT_MS,
      lookup: guardedLookup(environment, options.resolveAll ?? resolveAllWithDns),
    });
    return new Agent({
      // net.connect skips the lookup for a literal address, so a literal is judged here.
      connect: (connectOptions, callback) => {
        const host = bareHost(connectOptions.hostname);
        const refused = isIP(host) !== 0 ? firstRefused([host], environment) : undefined;
        if (refused) callback(refused, null);
        else connector(connectOptions, callback);
      },
      headersTimeout: options.readTimeoutMs ?? READ_TIMEOUT_MS,
      bodyTimeout: options.readTimeoutMs ?? READ_TIMEOUT_MS,
      connections: options.connections ?? 256,
      keepAliveTimeout: 4_000,
    });
  }

  async post(url: string, headers: Record<string, string>, body: string, environment: TargetEnvironment = 'production'): Promise<AttemptResult> {
    try {
      const response = await request(url, { method: 'POST', headers, body, dispatcher: this.agents[environment] });
      await response.body.dump({ limit: MAX_RESPONSE_BYTES }).catch(() => undefined);
      return { statusCode: response.statusCode };
    } catch (error) {
      const refused = refusedTargetIn(error);
      if (refused) return { error: `${REFUSED_TARGET_ERROR}:${refused.range}` };
      const code = (error as { code?: string; cause?: { code?: string } }).code ?? (error as { cause?: { code?: string } }).cause?.code ?? '';
      return { error: ERROR_TEXT[code] ?? (code ? `network_error:${code}` : 'network_error') };
    }
  }

  async close(): Promise<void> {
    await Promise.all(Object.values(this.agents).map((agent) => agent.close().catch(() => undefined)));
  }
}

function refusedTargetIn(error: unknown): TargetRefusedError | undefined {
  if (error instanceof TargetRefusedError) return error;
  const cause = (error as { cause?: unknown } | null)?.cause;
  return cause instanceof TargetRefusedError ? cause : undefined;
}
