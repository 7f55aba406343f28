import type { EgressEnvironment } from '@svc/egress';

/** How one upstream tool maps onto an OAP grant request. */
export interface ToolMapping {
  /** The upstream tool's name, as the agent sees it. */
  name: string;
  action: string;
  scope: string;
  /** The value of a call: the amount is the named argument (a decimal string or number), in `currency`. */
  value?: { amount_argument: string; currency: string };
}

/** An upstream MCP server registered by an application. */
export interface McpServerRecord {
  id: string;
  applicationId: string;
  environment: EgressEnvironment;
  name: string;
  url: string;
  tools: ToolMapping[];
  createdAt: Date;
}

/** The API view of a registered upstream server. */
export function mcpServerView(server: McpServerRecord): Record<string, unknown> {
  return {
    id: server.id,
    object: 'mcp_server',
    application_id: server.applicationId,
    name: server.name,
    url: server.url,
    tools: server.tools.map((tool) => ({ name: tool.name, action: tool.action, scope: tool.scope, value: tool.value ?? null })),
    created_at: server.createdAt.toISOString(),
  };
}
