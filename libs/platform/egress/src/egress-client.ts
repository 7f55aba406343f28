import { request, type Agent } from 'undici';
import type { EgressEnvironment } from './address-policy';
import { guardedAgent } from './guarded-agent';
import { networkErrorText } from './network-error';
import type { ResolveAll } from './target-check';

/** Connect timeout of a call, ms. */
export const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;
/** Read timeout of a call (response headers, then each body chunk), ms. */
export const DEFAULT_READ_TIMEOUT_MS = 15_000;

/** Error text of a call ended by its `signal` (an overall deadline passed, or the caller gave up). */
export const ABORTED_ERROR = 'aborted';

export interface EgressClientOptions {
  /** Response bytes read before the connection is dropped (the body is cut there). */
  maxResponseBytes: number;
  /** `text`: the (bounded) body is returned; `discard`: it is read and dropped, so the connection can be reused. */
  responseBody: 'text' | 'discard';
  connectTimeoutMs?: number;
  readTimeoutMs?: number;
  /** Connections per origin and environment; unlimited when absent. */
  connections?: number;
  /** Host name resolution; node:dns unless a test stands in. */
  resolveAll?: ResolveAll;
}

export interface EgressRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  url: string;
  headers: Record<string, string>;
  body?: string;
  /** The calling application's environment: which addresses the call may reach. */
  environment: EgressEnvironment;
  /** Aborts the call (e.g. `AbortSignal.timeout(ms)`: an overall deadline on top of the agent's timeouts). */
  signal?: AbortSignal;
}

/** A response (status, headers and, for `text` clients, the bounded body) or a short error text. */
export type EgressResult = { statusCode: number; headers: Record<string, string | string[] | undefined>; body: string } | { error: string };

/**
 * Calls customer-configured URLs with undici over shared keep-alive agents, one guarded agent per
 * environment (production: public unicast only; development: loopback too). Never follows
 * redirects, never throws: a response is its status, anything else a short error text
 * (`target_address_refused:<range>` for a refused address, see networkErrorText).
 */
export class EgressClient {
  private readonly agents: Record<EgressEnvironment, Agent>;

  constructor(private readonly options: EgressClientOptions) {
    const agentOptions = {
      connectTimeoutMs: options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
      readTimeoutMs: options.readTimeoutMs ?? DEFAULT_READ_TIMEOUT_MS,
      connections: options.connections,
      resolveAll: options.resolveAll,
    };
    this.agents = { development: guardedAgent('development', agentOptions), production: guardedAgent('production', agentOptions) };
  }

  async send(call: EgressRequest): Promise<EgressResult> {
    try {
      const response = await request(call.url, {
        method: call.method,
        headers: call.headers,
        body: call.body,
        dispatcher: this.agents[call.environment],
        signal: call.signal,
      });
      let body = '';
      if (this.options.responseBody === 'text') body = await readLimited(response.body, this.options.maxResponseBytes);
      else await response.body.dump({ limit: this.options.maxResponseBytes }).catch(() => undefined);
      return { statusCode: response.statusCode, headers: response.headers, body };
    } catch (error) {
      if (call.signal?.aborted) return { error: ABORTED_ERROR };
      return { error: networkErrorText(error) };
    }
  }

  async close(): Promise<void> {
    await Promise.all(Object.values(this.agents).map((agent) => agent.close().catch(() => undefined)));
  }
}

async function readLimited(body: AsyncIterable<Buffer> & { destroy?: () => void }, maxBytes: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > maxBytes) {
      body.destroy?.();
      break;
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}
