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

let loading: Promise<McpSdk> | undefined;

/**
 * The MCP SDK, loaded on first use: with its schemas (zod) it is a few hundred modules, which a
 * process that never serves an agent does not load at start. A failed load is tried again.
 */
export function mcpSdk(): Promise<McpSdk> {
  loading ??= Promise.all([
    import('@modelcontextprotocol/sdk/client/index.js'),
    import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
    import('@modelcontextprotocol/sdk/server/index.js'),
    import('@modelcontextprotocol/sdk/server/streamableHttp.js'),
    import('@modelcontextprotocol/sdk/types.js'),
  ]).then(
    ([client, clientTransport, server, serverTransport, types]) => ({
      Client: client.Client,
      StreamableHTTPClientTransport: clientTransport.StreamableHTTPClientTransport,
      Server: server.Server,
      StreamableHTTPServerTransport: serverTransport.StreamableHTTPServerTransport,
      types,
    }),
    (error: unknown) => {
      loading = undefined;
      throw error;
    },
  );
  return loading;
}
