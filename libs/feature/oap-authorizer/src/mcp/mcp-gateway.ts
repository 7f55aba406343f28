import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Injectable, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { Clock, PlatformConfig } from '@svc/config';
import { canonicalJson, sha256Hex } from '@svc/crypto';
import { DomainError } from '@svc/errors';
import { guardedAgent, type EgressEnvironment } from '@svc/egress';
import type { FastifyInstance } from 'fastify';
import { fetch as undiciFetch, type Agent } from 'undici';
import { AuthoritiesRepository } from '../authorities/authorities.repository';
import { matchesName, type GrantRequest } from '../grants/checks/cascade-step';
import { DpopVerifier } from '../grants/dpop';
import type { Grant } from '../grants/grant';
import { grantRequestFromJson } from '../grants/grant-request-json';
import { GrantsRepository } from '../grants/grants.repository';
import { DPOP_CHALLENGE } from '../grants/jws-algorithms';
import { RequestGrant } from '../grants/use-cases/request-grant.use-case';
import { EscalationsRepository } from '../escalations/escalations.repository';
import { GrantStatusDirectory } from '../verification/grant-status';
import type { McpServerRecord, ToolMapping } from './mcp-server';
import { mcpSdk, type McpSdk } from './mcp-sdk';
import { McpServersRepository } from './mcp-servers.repository';
import { MCP_AGENT_PATH, MCP_ERRORS, MCP_META, PROTECTED_RESOURCE_METADATA_PATH } from './mcp-protocol';

const AGENT_TOKEN = /^ra_agent_[A-Za-z0-9_-]{43}$/;
/** Life of the one-call grant a tool call asks the cascade for, seconds. */
const CALL_GRANT_SECONDS = 300;
/** Timeout of one upstream call, ms. */
const UPSTREAM_TIMEOUT_MS = 15_000;

/** A tool the agent may call: its upstream server and mapping. */
interface CallableTool {
  server: McpServerRecord;
  mapping: ToolMapping;
}

/** A refused request before MCP: HTTP status and the RFC 6750 / RFC 9449 challenge. */
class GatewayRefusal extends Error {
  constructor(
    readonly status: number,
    readonly challenge: string,
  ) {
    super('refused');
  }
}

/**
 * The MCP gateway (Streamable HTTP, stateless): an agent connects with its `ra_agent_…` token and a
 * DPoP proof of each request; it lists the tools of its application's upstream servers that its
 * token's scope and the authority's actions allow, and every `tools/call` is a grant request run
 * through the cascade (the use case of `POST /api/v1/grants`): allow → forwarded upstream through
 * the egress policy with the runtime receipt in `_meta`; deny → an MCP error with
 * `denial_category` and `cascade_step`; escalate → an MCP error with the `decision_url`, and the
 * call retried with `_meta["oap/escalation_id"]` once approved passes once.
 */
@Injectable()
export class McpGateway implements OnModuleInit {
  private readonly agents: Record<EgressEnvironment, Agent> = {
    development: guardedAgent('development', { connectTimeoutMs: 5_000, readTimeoutMs: UPSTREAM_TIMEOUT_MS }),
    production: guardedAgent('production', { connectTimeoutMs: 5_000, readTimeoutMs: UPSTREAM_TIMEOUT_MS }),
  };

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly config: PlatformConfig,
    private readonly clock: Clock,
    private readonly dpop: DpopVerifier,
    private readonly grants: GrantsRepository,
    private readonly authorities: AuthoritiesRepository,
    private readonly servers: McpServersRepository,
    private readonly requestGrant: RequestGrant,
    private readonly escalations: EscalationsRepository,
    private readonly directory: GrantStatusDirectory,
  ) {}

  onModuleInit(): void {
    const fastify = this.adapterHost.httpAdapter?.getInstance<FastifyInstance>();
    if (!fastify) return;
    fastify.route({
      method: ['GET', 'POST', 'DELETE'],
      url: MCP_AGENT_PATH,
      handler: async (request, reply) => {
        reply.hijack();
        await this.handle(request.raw, reply.raw, request.body);
      },
    });
  }

  private async handle(req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
    let grant: Grant;
    try {
      grant = await this.authenticate(req);
    } catch (error) {
      if (!(error instanceof GatewayRefusal)) throw error;
      res.writeHead(error.status, { 'content-type': 'application/json', 'www-authenticate': error.challenge, 'cache-control': 'no-store' });
      res.end(JSON.stringify({ error: 'invalid_token' }));
      return;
    }
    const sdk = await mcpSdk();
    if (req.method !== 'POST') {
      // Stateless: no server-initiated stream and no session to delete.
      res.writeHead(405, { allow: 'POST', 'content-type': 'application/json' });
      res.end(
        JSON.stringify({ jsonrpc: '2.0', error: { code: sdk.types.ErrorCode.ConnectionClosed, message: 'Method not allowed' }, id: null }),
      );
      return;
    }
    const server = this.serverFor(sdk, grant);
    const transport = new sdk.StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  }

  /** `Authorization: DPoP ra_agent_…` (or Bearer) + a proof with `ath`, made with the token's key; an active, unexpired grant. */
  private async authenticate(req: IncomingMessage): Promise<Grant> {
    const resourceMetadata = `resource_metadata="${this.config.publicBaseUrl}${PROTECTED_RESOURCE_METADATA_PATH}"`;
    const match = /^(DPoP|Bearer) (\S+)$/i.exec(req.headers.authorization ?? '');
    if (!match?.[2] || !AGENT_TOKEN.test(match[2])) throw new GatewayRefusal(401, `${DPOP_CHALLENGE}, ${resourceMetadata}`);
    const token = match[2];
    let jkt: string;
    try {
      ({ jkt } = await this.dpop.verify({
        header: req.headers.dpop,
        method: req.method ?? 'POST',
        url: `${this.config.publicBaseUrl}${MCP_AGENT_PATH}`,
        accessToken: token,
      }));
    } catch (error) {
      if (error instanceof DomainError) throw new GatewayRefusal(401, `DPoP error="invalid_dpop_proof", ${resourceMetadata}`);
      throw error;
    }
    const grant = await this.grants.findByTokenDigest(sha256Hex(token));
    if (!grant || grant.status !== 'active' || grant.validUntil <= this.clock.now() || grant.dpopJkt !== jkt) {
      throw new GatewayRefusal(401, `DPoP error="invalid_token", ${resourceMetadata}`);
    }
    return grant;
  }

  private serverFor(sdk: McpSdk, grant: Grant): Server {
    const server = new sdk.Server({ name: 'oap-mcp-gateway', version: '1.0.0' }, { capabilities: { tools: {} } });
    server.setRequestHandler(sdk.types.ListToolsRequestSchema, async () => ({ tools: await this.listTools(sdk, grant) }));
    server.setRequestHandler(sdk.types.CallToolRequestSchema, async (request) =>
      this.callTool(sdk, grant, request.params.name, request.params.arguments ?? {}, request.params._meta),
    );
    return server;
  }

  /** The tools the token may call: mapped, scope in the token, action in the grant, authority still active. */
  private async callable(grant: Grant): Promise<Map<string, CallableTool>> {
    const tools = new Map<string, CallableTool>();
    const authority = await this.authorities.find(grant.authorityId);
    if (!authority || authority.status === 'revoked') return tools;
    const prohibited = authority.bounds.action_bounds?.prohibited ?? [];
    for (const server of await this.servers.listFor(grant.applicationId)) {
      for (const mapping of server.tools) {
        if (tools.has(mapping.name)) continue;
        if (!grant.scopes.includes(mapping.scope)) continue;
        const actionAllowed =
          authority.bounds.action_bounds?.unrestricted === true || grant.actions.some((action) => matchesName(action, mapping.action));
        if (!actionAllowed || prohibited.some((p) => matchesName(p, mapping.action))) continue;
        tools.set(mapping.name, { server, mapping });
      }
    }
    return tools;
  }

  private async listTools(sdk: McpSdk, grant: Grant): Promise<Tool[]> {
    const callable = await this.callable(grant);
    const byServer = new Map<McpServerRecord, Set<string>>();
    for (const { server, mapping } of callable.values()) byServer.set(server, (byServer.get(server) ?? new Set()).add(mapping.name));
    const listed: Tool[] = [];
    for (const [server, names] of byServer) {
      const upstream = await this.withUpstream(sdk, server, (client) => client.listTools());
      for (const tool of upstream.tools) if (names.has(tool.name)) listed.push(tool);
    }
    return listed;
  }

  private async callTool(
    sdk: McpSdk,
    grant: Grant,
    name: string,
    args: Record<string, unknown>,
    meta: Record<string, unknown> | undefined,
  ): Promise<CallToolResult> {
    const tool = (await this.callable(grant)).get(name);
    if (!tool) throw new sdk.types.McpError(sdk.types.ErrorCode.InvalidParams, `Unknown tool: ${name}`);
    const request = this.grantRequestOf(sdk, grant, tool.mapping, args);
    const marker = meta?.[MCP_META.escalationId];
    const escalationId = typeof marker === 'string' ? marker : undefined;
    const decided = escalationId ? await this.approved(sdk, grant, request, escalationId) : await this.decide(sdk, grant, request);
    const result = (await this.withUpstream(sdk, tool.server, (client) => client.callTool({ name, arguments: args }))) as CallToolResult;
    return { ...result, _meta: { ...(result._meta ?? {}), [MCP_META.receipt]: decided.receipt, [MCP_META.grantId]: decided.grantId } };
  }

  private grantRequestOf(sdk: McpSdk, grant: Grant, mapping: ToolMapping, args: Record<string, unknown>): GrantRequest {
    let value: GrantRequest['value'];
    if (mapping.value) {
      const raw = args[mapping.value.amount_argument];
      const amount = typeof raw === 'number' && Number.isFinite(raw) ? raw.toFixed(2) : raw;
      if (typeof amount !== 'string' || !/^\d{1,15}(\.\d{1,6})?$/.test(amount))
        throw new sdk.types.McpError(
          sdk.types.ErrorCode.InvalidParams,
          `Argument ${mapping.value.amount_argument} must be a decimal amount`,
        );
      value = { amount, currency: mapping.value.currency };
    }
    const until = Math.min(grant.validUntil.getTime(), this.clock.now().getTime() + CALL_GRANT_SECONDS * 1000);
    return {
      applicationId: grant.applicationId,
      agentId: grant.agentId,
      dpopJkt: grant.dpopJkt,
      scopes: [mapping.scope],
      actions: [mapping.action],
      validUntil: new Date(until),
      value,
      delegationChain: [],
    };
  }

  /** Runs the cascade (steps 3–15) for the call under the token's authority. */
  private async decide(sdk: McpSdk, grant: Grant, request: GrantRequest): Promise<{ receipt: string; grantId: string }> {
    const key = randomUUID();
    const response = await this.requestGrant.execute(request, {
      idempotencyKey: key,
      requestSha256: sha256Hex(canonicalJson({ mcp_call: key })),
      authorityId: grant.authorityId,
    });
    const body = response.body;
    if (response.status === 201) return { receipt: body.grant_attestation as string, grantId: body.grant_id as string };
    if (response.status === 202) {
      throw new sdk.types.McpError(
        MCP_ERRORS.escalated,
        'The person must approve this call; retry it with _meta["oap/escalation_id"] once approved',
        {
          decision: 'escalate',
          decision_url: body.decision_url,
          escalation_id: body.escalation_id,
          approval_ttl_at: body.approval_ttl_at,
          cascade_step: body.cascade_step,
        },
      );
    }
    throw new sdk.types.McpError(MCP_ERRORS.denied, typeof body.message === 'string' ? body.message : 'The call was denied', {
      decision: 'deny',
      denial_category: body.denial_category ?? null,
      cascade_step: body.cascade_step ?? null,
      reason_code: body.reason_code ?? null,
    });
  }

  /** A retried call after approval: the approved escalation of this agent for the same action, scope and value, used once. */
  private async approved(
    sdk: McpSdk,
    grant: Grant,
    request: GrantRequest,
    escalationId: string,
  ): Promise<{ receipt: string; grantId: string }> {
    const escalation = /^[A-Za-z0-9_]{1,64}$/.test(escalationId) ? await this.escalations.find(escalationId) : undefined;
    if (!escalation || escalation.agentId !== grant.agentId || escalation.applicationId !== grant.applicationId)
      throw new sdk.types.McpError(MCP_ERRORS.denied, 'Unknown escalation', { decision: 'deny', reason_code: 'escalation_not_found' });
    if (escalation.status !== 'approved' || !escalation.grantId) {
      throw new sdk.types.McpError(
        escalation.status === 'pending' ? MCP_ERRORS.escalated : MCP_ERRORS.denied,
        `The escalation is ${escalation.status}`,
        {
          decision: escalation.status === 'pending' ? 'escalate' : 'deny',
          escalation_id: escalation.id,
          reason_code: `escalation_${escalation.status}`,
        },
      );
    }
    const asked = grantRequestFromJson(JSON.parse(escalation.requestJson) as Record<string, unknown>);
    const same =
      canonicalJson({ a: asked.actions, s: asked.scopes, v: asked.value ?? null }) ===
      canonicalJson({ a: request.actions, s: request.scopes, v: request.value ?? null });
    if (!same)
      throw new sdk.types.McpError(MCP_ERRORS.denied, 'The escalation approved another call', {
        decision: 'deny',
        reason_code: 'escalation_mismatch',
      });
    const approvedGrant = await this.grants.find(escalation.grantId);
    const consumed = await this.directory.consume(escalation.grantId);
    if (!approvedGrant || approvedGrant.status !== 'active' || !consumed?.consumed)
      throw new sdk.types.McpError(MCP_ERRORS.denied, 'The approved call was already made', {
        decision: 'deny',
        reason_code: 'escalation_used',
      });
    return { receipt: approvedGrant.receipt, grantId: approvedGrant.id };
  }

  /** Connects to the upstream server through the egress policy of the application's environment. */
  private async withUpstream<T>(sdk: McpSdk, server: McpServerRecord, work: (client: Client) => Promise<T>): Promise<T> {
    const dispatcher = this.agents[server.environment];
    const egressFetch = ((url: string | URL, init?: RequestInit) =>
      undiciFetch(url, { ...(init as object), dispatcher, redirect: 'manual' } as Parameters<
        typeof undiciFetch
      >[1])) as unknown as typeof fetch;
    const client = new sdk.Client({ name: 'oap-mcp-gateway', version: '1.0.0' });
    try {
      await client.connect(new sdk.StreamableHTTPClientTransport(new URL(server.url), { fetch: egressFetch }));
      return await work(client);
    } catch (error) {
      if (error instanceof sdk.types.McpError) throw error;
      throw new sdk.types.McpError(MCP_ERRORS.upstream, 'The upstream MCP server could not be reached', { server_id: server.id });
    } finally {
      await client.close().catch(() => undefined);
    }
  }
}
