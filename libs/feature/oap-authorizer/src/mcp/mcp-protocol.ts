/**
 * The MCP revision the gateway implements: Streamable HTTP transport and the authorization of the
 * 2025-11-25 specification (OAuth 2.1 resource server, RFC 9728 protected-resource metadata).
 * Older revisions the SDK negotiates are still answered.
 */
export const MCP_PROTOCOL_VERSION = '2025-11-25';

/** The gateway's path. */
export const MCP_AGENT_PATH = '/mcp/v1/agent';

/** RFC 9728 §3.1: the metadata of a resource with a path lives under the well-known prefix + that path. */
export const PROTECTED_RESOURCE_METADATA_PATH = `/.well-known/oauth-protected-resource${MCP_AGENT_PATH}`;

/** JSON-RPC error codes of refused tool calls (implementation-defined server error range). */
export const MCP_ERRORS = {
  /** The cascade denied the call: `data` carries `denial_category`, `cascade_step`, `reason_code`. */
  denied: -32003,
  /** The cascade escalated: `data` carries `decision_url` and `escalation_id`; retry with `_meta["oap/escalation_id"]` once approved. */
  escalated: -32004,
  /** The upstream server could not be reached or refused the call. */
  upstream: -32005,
} as const;

/** `_meta` keys the gateway reads and writes. */
export const MCP_META = {
  receipt: 'oap/receipt',
  grantId: 'oap/grant_id',
  escalationId: 'oap/escalation_id',
} as const;
