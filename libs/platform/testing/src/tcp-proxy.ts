import { createConnection, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy a test controls, put between a process and a shared server (NATS, Postgres) to
 * simulate an outage without touching the server: `cut()` drops every open connection and refuses
 * new ones until `restore()`.
 */
export class TcpProxy {
  private readonly sockets = new Set<Socket>();
  private cutOff = false;

  private constructor(
    private readonly server: Server,
    /** Port the proxy listens on (127.0.0.1). */
    readonly port: number,
  ) {}

  /** Starts a proxy on a free port of 127.0.0.1 forwarding to `target` (`host:port` or a URL such as `nats://127.0.0.1:4222`). */
  static async start(target: string): Promise<TcpProxy> {
    const { hostname, port } = new URL(target.includes('://') ? target : `tcp://${target}`);
    const targetPort = Number(port);
    const server = createServer();
    const proxy = await new Promise<TcpProxy>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => {
        const address = server.address();
        resolve(new TcpProxy(server, typeof address === 'object' && address ? address.port : 0));
      });
    });
    server.on('connection', (client) => proxy.accept(client, hostname, targetPort));
    return proxy;
  }

  /** `scheme://127.0.0.1:<port>`, to hand to the process under test. */
  url(scheme: string): string {
    return `${scheme}://127.0.0.1:${this.port}`;
  }

  /** Connections currently forwarded. */
  get openConnections(): number {
    return this.sockets.size;
  }

  /** Drops every forwarded connection and refuses new ones until {@link restore}. */
  cut(): void {
    this.cutOff = true;
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
  }

  /** Forwards new connections again. */
  restore(): void {
    this.cutOff = false;
  }

  /** Stops listening and drops every connection. */
  async close(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(client: Socket, host: string, port: number): void {
    if (this.cutOff) {
      client.destroy();
      return;
    }
    const upstream = createConnection({ host, port });
    for (const socket of [client, upstream]) {
      this.sockets.add(socket);
      socket.setNoDelay(true);
      socket.on('error', () => undefined);
      socket.on('close', () => {
        this.sockets.delete(socket);
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream);
    upstream.pipe(client);
  }
}
