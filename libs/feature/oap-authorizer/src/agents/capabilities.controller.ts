import { Controller, Get, Options, Param, Req, Res, type OnModuleInit } from '@nestjs/common';
import { ApiDoc, ApiResponseOf, MemoryAnswers, cachedDocumentOf, clientAddress, sendMemoryAnswer, type MemoryAnswer } from '@svc/server';
import { CapabilityDocumentResponse } from './agent.response';
import { Public } from '@svc/auth';
import { RpcClient } from '@svc/bus';
import { PlatformConfig } from '@svc/config';
import { canonicalJson } from '@svc/crypto';
import { isIdOf } from '@svc/ids';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Agent, CapabilityVersion } from './agent';
import { AgentsRepository } from './agents.repository';
import { CapabilityDocuments, type CachedCapabilityDocument } from './capability-documents';
import { IpRateLimiter } from './ip-rate-limiter';

/** Cache lifetime of a capability document on 200 and 304, seconds (spec, Limits). */
export const CAPABILITY_MAX_AGE_SECONDS = 300;
/** Headers of the 200 and the 304 after the ETag (the document is public: any origin may read it). */
const DOCUMENT_HEADERS = { 'cache-control': `public, max-age=${CAPABILITY_MAX_AGE_SECONDS}`, 'access-control-allow-origin': '*' };
const JSON_MEDIA_TYPE = 'application/json; charset=utf-8';
/** The route as Fastify names it: the key of its answers from memory. */
const ROUTE = '/api/v1/agents/:agent_id/capabilities';

/**
 * The one 404 body of the five undiscoverable cases (unknown agent, application not hosting agents,
 * capabilities_published false, no snapshot, operator suppression): byte-identical so a caller
 * cannot tell them apart.
 */
export const UNDISCOVERABLE_BODY = JSON.stringify({ message: 'Agent not discoverable', reason_code: 'agent_not_discoverable' });

/** Public capability documents (`GET /api/v1/agents/{agent_id}/capabilities`). */
@Controller('api/v1/agents/:agent_id/capabilities')
@Public()
export class CapabilitiesController implements OnModuleInit {
  constructor(
    private readonly agents: AgentsRepository,
    private readonly rpc: RpcClient,
    private readonly limiter: IpRateLimiter,
    private readonly config: PlatformConfig,
    private readonly documents: CapabilityDocuments,
    private readonly memoryAnswers: MemoryAnswers,
  ) {}

  /**
   * A cached document is answered before Nest's pipeline (a 304 then costs about what a bare route
   * costs), counted by the same per-IP limit. Everything else reaches {@link get}: a cold or
   * invalidated cache, and a client over its limit (the route counts it again and answers 429; a
   * client over the limit stays over it for the rest of the window). Only identifiers the route
   * itself cached are ever found, so the identifier check has nothing to add here.
   */
  onModuleInit(): void {
    this.memoryAnswers.serve(ROUTE, (request) => {
      const document = this.documents.cache.get((request.params as { agent_id?: string }).agent_id ?? '');
      if (!document) return undefined;
      if (this.limiter.hit(clientAddress(request)) !== undefined) return undefined;
      return answerOf(document);
    });
  }

  /** CORS preflight: never rate limited. */
  @ApiDoc({ summary: 'CORS preflight of the capability document (not rate limited)', tag: 'OAP', errors: [], status: 204 })
  @Options()
  preflight(@Res() reply: FastifyReply): void {
    void reply
      .status(204)
      .header('access-control-allow-origin', '*')
      .header('access-control-allow-methods', 'GET, OPTIONS')
      .header('access-control-allow-headers', 'if-none-match')
      .header('access-control-max-age', '600')
      .send();
  }

  @ApiDoc({
    summary: 'Public capability document: strong ETag, If-None-Match → 304, public max-age=300, 60 GET/min per IP',
    tag: 'OAP',
    errors: [400, 404, 429],
    alsoAnswers: [304],
    conditional: true,
  })
  @Get()
  @ApiResponseOf(CapabilityDocumentResponse)
  async get(@Param('agent_id') agentId: string, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const retryAfter = this.limiter.hit(clientAddress(request));
    if (retryAfter !== undefined) {
      void reply
        .status(429)
        .header('cache-control', 'no-store')
        .header('retry-after', String(retryAfter))
        .send({ message: 'Too many requests', reason_code: 'rate_limited' });
      return;
    }
    if (!isIdOf('agent', agentId)) {
      void reply
        .status(400)
        .header('cache-control', 'no-store')
        .send({ message: 'agent_id is not an agent identifier', reason_code: 'agent_id_malformed', detail: { field: 'agent_id' } });
      return;
    }
    // Served from memory, computed once per change: a matching If-None-Match costs no database read.
    const document = await this.documents.cache.load(agentId, () => this.load(agentId));
    if (!document) {
      void reply.status(404).header('cache-control', 'no-store').header('content-type', JSON_MEDIA_TYPE).send(UNDISCOVERABLE_BODY);
      return;
    }
    sendMemoryAnswer(request, reply, answerOf(document));
  }

  private async load(agentId: string): Promise<CachedCapabilityDocument | undefined> {
    const found = await this.discoverable(agentId);
    if (!found) return undefined;
    return {
      applicationId: found.agent.applicationId,
      versionId: found.version.versionId,
      ...cachedDocumentOf(canonicalJson(this.document(found.agent, found.version))),
    };
  }

  private async discoverable(agentId: string): Promise<{ agent: Agent; version: CapabilityVersion } | undefined> {
    const agent = await this.agents.find(agentId);
    if (!agent || agent.suppressed) return undefined;
    const application = await this.rpc.call('gateway.get_application', { applicationId: agent.applicationId });
    // "Application not of agent type": an Oversight-only application decides with its own engine
    // and publishes no Conductor capability document.
    if (!application.found || application.mode === 'oversight' || !application.capabilitiesPublished) return undefined;
    const version = await this.agents.currentVersion(agentId);
    return version ? { agent, version } : undefined;
  }

  private document(agent: Agent, version: CapabilityVersion): CapabilityDocumentResponse {
    return {
      agent_id: agent.id,
      region: this.config.REGION,
      version_id: version.versionId,
      published_at: version.publishedAt.toISOString(),
      scopes: version.scopes.map((s) => ({ id: s.id, label: s.label, parent: s.parent, custom: s.custom, status: s.status })),
      actions: version.actions,
      bounds_supported: ['scope', 'action', 'value', 'time', 'escalation', 'reputation'],
      oidc_a: {
        agent_capabilities: version.scopes.map((s) => `oap:${s.id}`).sort(),
        projection_version: 1,
        agent_type: agent.metadata?.agent_type ?? null,
        agent_provider: agent.metadata?.agent_provider ?? null,
        agent_model: agent.metadata?.agent_model ?? null,
        agent_version: agent.metadata?.agent_version ?? null,
      },
      cache: { max_age_seconds: CAPABILITY_MAX_AGE_SECONDS, version_id: version.versionId },
    };
  }
}

/** The 200 and 304 of a cached document, the same from memory and from the route. */
function answerOf(document: CachedCapabilityDocument): MemoryAnswer {
  return { etag: document.etag, headers: DOCUMENT_HEADERS, contentType: JSON_MEDIA_TYPE, body: document.body };
}
