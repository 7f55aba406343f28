import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { Clock } from '@svc/config';
import { LOGGER } from '@svc/server';
import type { Logger } from '@svc/telemetry';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DataSource } from 'typeorm';
import { ApplicationsRepository } from '../applications/applications.repository';
import { tokenDigest } from '../decisions/session-token';
import { HostedRepository } from './hosted.repository';

/** Paths a browser may call cross-origin: minting with a publishable key and the session-token routes. */
const BROWSER_PATHS = /^\/api\/v1\/(decisions|consent_sessions)(\/|$)/;
const SESSION_IN_PATH = /^\/api\/v1\/decisions\/((?:dts_)?[A-Za-z0-9_-]{43})(\/|$)/;
const ALLOWED_HEADERS = 'content-type, x-publishable-key, accept';
const ALLOWED_METHODS = 'GET, POST, OPTIONS';
/** Activity event type of a refused preflight (spec, Other events). */
export const CORS_PREFLIGHT_DENIED = 'cors.preflight_denied';

/**
 * CORS for browser SDK calls (spec, Authentication rule 3). A preflight carries no credential, so
 * the application is named by the session token in the path or by the `publishable_key` query
 * parameter the SDK adds (publishable keys are public). An origin in that application's allowed
 * origins gets `Access-Control-Allow-Origin: <origin>` (never `*`, no credentials: the API uses no
 * cookies); any other preflight answers 403 `cors_origin_not_allowed` and, when the application is
 * known, records `cors.preflight_denied` in its activity log. Server-side calls (no Origin) are
 * untouched. Registered as a Fastify hook so preflights never reach the routes or the auth guard.
 */
@Injectable()
export class BrowserCors implements OnModuleInit {
  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly dataSource: DataSource,
    private readonly applications: ApplicationsRepository,
    private readonly hosted: HostedRepository,
    private readonly clock: Clock,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  onModuleInit(): void {
    const adapter = this.adapterHost.httpAdapter;
    if (!adapter) return;
    const fastify = adapter.getInstance<FastifyInstance>();
    // Callback style, deciding without a promise whether it applies: every request runs it.
    fastify.addHook('onRequest', (request, reply, done) => {
      if (typeof request.headers.origin !== 'string' || !BROWSER_PATHS.test(request.url.split('?', 1)[0] ?? '')) return done();
      this.handle(request, reply).then(() => {
        if (!reply.sent) done();
      }, done);
    });
  }

  private async handle(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> {
    const origin = request.headers.origin;
    const [path = '', search = ''] = request.url.split('?', 2);
    if (typeof origin !== 'string' || !BROWSER_PATHS.test(path)) return undefined;
    void reply.header('vary', 'Origin');
    const applicationId = await this.applicationOf(path, new URLSearchParams(search).get('publishable_key'));
    const allowed = applicationId !== undefined && (await this.applications.allOrigins(applicationId)).includes(origin);
    const preflight = request.method === 'OPTIONS' && request.headers['access-control-request-method'] !== undefined;
    if (!preflight) {
      if (allowed) void reply.header('access-control-allow-origin', origin);
      return undefined;
    }
    if (!allowed) {
      if (applicationId !== undefined) await this.recordDenied(applicationId, origin, path);
      return reply
        .code(403)
        .type('application/json')
        .send({ message: "This origin is not one of the application's allowed origins", reason_code: 'cors_origin_not_allowed' });
    }
    return reply
      .code(204)
      .header('access-control-allow-origin', origin)
      .header('access-control-allow-methods', ALLOWED_METHODS)
      .header('access-control-allow-headers', ALLOWED_HEADERS)
      .header('access-control-max-age', '600')
      .send();
  }

  private async applicationOf(path: string, publishableKey: string | null): Promise<string | undefined> {
    const token = SESSION_IN_PATH.exec(path)?.[1];
    if (token) {
      const rows: Array<{ application_id: string }> = await this.dataSource.query(
        `SELECT application_id FROM gateway.decision_sessions WHERE token_sha256 = $1`,
        [tokenDigest(token)],
      );
      return rows[0]?.application_id;
    }
    if (publishableKey && publishableKey.length <= 200) return (await this.applications.findByPublishableKey(publishableKey))?.id;
    return undefined;
  }

  private async recordDenied(applicationId: string, origin: string, path: string): Promise<void> {
    try {
      // The path is logged without its session token: the token is a capability.
      await this.hosted.recordActivity({
        applicationId,
        type: CORS_PREFLIGHT_DENIED,
        origin: origin.slice(0, 2048),
        method: 'OPTIONS',
        path: path.replace(SESSION_IN_PATH, '/api/v1/decisions/:session_token$2'),
        occurredAt: this.clock.now(),
      });
    } catch (error) {
      this.logger.warn({ err: error, applicationId }, 'could not record cors.preflight_denied');
    }
  }
}
