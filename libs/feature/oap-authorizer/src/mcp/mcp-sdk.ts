import type * as ClientModule from '@modelcontextprotocol/sdk/client/index.js';
import type * as ClientTransportModule from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type * as ServerModule from '@modelcontextprotocol/sdk/server/index.js';
import type * as ServerTransportModule from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type * as TypesModule from '@modelcontextprotocol/sdk/types.js';

/** The parts of the MCP SDK the gateway uses. */
export interface McpSdk {
  readonly Client: typeof ClientModule.Client;
  readonly StreamableHTTPClientTransport: typeof ClientTransportModule.StreamableHTTPClientTransport;
  readonly Server: typeof ServerModule.Server;
  readonly StreamableHTTPServerTransport: typeof ServerTransportModule.StreamableHTTPServerTransport;
  readonly types: typeof TypesModule;
}

/**
 * The MCP SDK, loaded on first use: with its schemas (zod) it is a few hundred modules, which a
 * process that never serves an agent does not load at start. Later calls find the modules loaded.
 */
export async function mcpSdk(): Promise<McpSdk> {
  const [client, clientTransport, server, serverTransport, types] = await Promise.all([
    import('@modelcontextprotocol/sdk/client/index.js'),
    import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
    import('@modelcontextprotocol/sdk/server/index.js'),
    import('@modelcontextprotocol/sdk/server/streamableHttp.js'),
    import('@modelcontextprotocol/sdk/types.js'),
  ]);
  return {
    Client: client.Client,
    StreamableHTTPClientTransport: clientTransport.StreamableHTTPClientTransport,
    Server: server.Server,
    StreamableHTTPServerTransport: serverTransport.StreamableHTTPServerTransport,
    types,
  };
}
