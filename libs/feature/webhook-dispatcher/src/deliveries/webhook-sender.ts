import { EgressClient, type EgressEnvironment, type ResolveAll } from '@svc/egress';
import type { AttemptResult } from './retry-schedule';

/** Connect timeout of an attempt, ms (spec, Limits: 10 s). */
export const CONNECT_TIMEOUT_MS = 10_000;
/** Read timeout of an attempt (response headers, then each body chunk), ms (spec, Limits: 15 s). */
export const READ_TIMEOUT_MS = 15_000;
/** Response bytes read (then discarded) before the connection is dropped; receivers answer small bodies. */
const MAX_RESPONSE_BYTES = 64 * 1024;

export interface WebhookSenderOptions {
  connections?: number;
  connectTimeoutMs?: number;
  readTimeoutMs?: number;
  /** Host name resolution; node:dns unless a test stands in. */
  resolveAll?: ResolveAll;
}

/**
 * POSTs webhook bodies through the guarded egress client (one keep-alive agent per environment,
 * every connection checked against the environment's address policy). Never follows redirects,
 * never throws: a response is its status code, anything else a short error text.
 */
export class WebhookSender {
  private readonly client: EgressClient;

  constructor(options: WebhookSenderOptions = {}) {
    this.client = new EgressClient({
      maxResponseBytes: MAX_RESPONSE_BYTES,
      responseBody: 'discard',
      connectTimeoutMs: options.connectTimeoutMs ?? CONNECT_TIMEOUT_MS,
      readTimeoutMs: options.readTimeoutMs ?? READ_TIMEOUT_MS,
      connections: options.connections ?? 256,
      resolveAll: options.resolveAll,
    });
  }

  async post(
    url: string,
    headers: Record<string, string>,
    body: string,
    environment: EgressEnvironment = 'production',
  ): Promise<AttemptResult> {
    const result = await this.client.send({ method: 'POST', url, headers, body, environment });
    return 'error' in result ? { error: result.error } : { statusCode: result.statusCode };
  }

  close(): Promise<void> {
    return this.client.close();
  }
}
