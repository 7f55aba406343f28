import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

/** A small upstream MCP server (the SDK's server) on a loopback port (stateless Streamable HTTP) with three tools. */
export interface Upstream {
  url: string;
  /** Every tool call that reached the upstream, in order. */
  calls: Array<{ name: string; args: Record<string, unknown> }>;
  close(): Promise<void>;
}

export async function startUpstream(): Promise<Upstream> {
  const calls: Upstream['calls'] = [];
  const tools = [
    {
      name: 'pay',
      description: 'Pay a merchant',
      inputSchema: {
        type: 'object' as const,
        properties: { amount: { type: 'string' }, payee: { type: 'string' } },
        required: ['amount', 'payee'],
      },
    },
    {
      name: 'quote',
      description: 'Quote a price',
      inputSchema: { type: 'object' as const, properties: { item: { type: 'string' } }, required: ['item'] },
    },
    { name: 'wipe', description: 'Delete every file', inputSchema: { type: 'object' as const, properties: {} } },
  ];
  const build = (): Server => {
    const server = new Server({ name: 'shop', version: '1.0.0' }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));
    server.setRequestHandler(CallToolRequestSchema, async (request) => {
      const args = request.params.arguments ?? {};
      calls.push({ name: request.params.name, args });
      return { content: [{ type: 'text', text: `${request.params.name} done: ${JSON.stringify(args)}` }] };
    });
    return server;
  };
  const http: HttpServer = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      void (async () => {
        const server = build();
        const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
        res.on('close', () => {
          void transport.close();
          void server.close();
        });
        await server.connect(transport);
        const text = Buffer.concat(chunks).toString('utf8');
        await transport.handleRequest(req, res, text ? JSON.parse(text) : undefined);
      })();
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/mcp`, calls, close: () => new Promise((resolve) => http.close(() => resolve())) };
}
