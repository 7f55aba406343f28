import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as the receiver saw it. */
export interface ReceivedWebhook {
  path: string;
  headers: IncomingHttpHeaders;
  rawBody: string;
  body: Record<string, unknown>;
  receivedAt: number;
}

/** Status to answer, or 'hang' to keep the request open until the receiver closes. */
export type Responder = (request: ReceivedWebhook) => number | 'hang';

/**
 * A real HTTP receiver on loopback (node:http) for webhook tests and benchmarks: records every
 * request with its raw body and answers what `respond` says (200 by default).
 */
export class LoopbackReceiver {
  readonly received: ReceivedWebhook[] = [];
  respond: Responder = () => 200;
  onRequest?: (request: ReceivedWebhook) => void;
  private readonly hanging = new Set<ServerResponse>();
  private server?: Server;
  private port = 0;

  constructor(private readonly record = true) {}

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const rawBody = Buffer.concat(chunks).toString('utf8');
        let body: Record<string, unknown> = {};
        try {
          body = JSON.parse(rawBody) as Record<string, unknown>;
        } catch {
          body = {};
        }
        const request: ReceivedWebhook = { path: req.url ?? '/', headers: req.headers, rawBody, body, receivedAt: Date.now() };
        if (this.record) this.received.push(request);
        this.onRequest?.(request);
        const status = this.respond(request);
        if (status === 'hang') {
          this.hanging.add(res);
          return;
        }
        res.writeHead(status, { 'content-type': 'text/plain' }).end('ok');
      });
    });
    this.server.keepAliveTimeout = 5_000;
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  /** URL of a path on this receiver, e.g. `url('/hooks/a')`. */
  url(path = '/hook'): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  /** Requests received on one path. */
  on(path: string): ReceivedWebhook[] {
    return this.received.filter((r) => r.path === path);
  }

  async close(): Promise<void> {
    for (const res of this.hanging) res.destroy();
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
