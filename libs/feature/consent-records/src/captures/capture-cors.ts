import { Injectable, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApplicationOrigins } from './application-origins';

/** The consent-records paths a browser calls cross-origin: capture creation and the consent field's rendering. */
const CAPTURE_PATH = /^\/capture\/v1\/(captures|fields\/[^/]+)$/;

/**
 * CORS for the capture snippet and the consent field (spec, Authentication rule 3): the
 * preflight names the application by the `publishable_key` query parameter both scripts add; an
 * allowed origin gets `Access-Control-Allow-Origin: <origin>` (never `*`, no credentials), any
 * other preflight 403 `cors_origin_not_allowed`. The requests themselves are checked again by their use cases.
 */
@Injectable()
export class CaptureCors implements OnModuleInit {
  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly origins: ApplicationOrigins,
  ) {}

  onModuleInit(): void {
    const fastify = this.adapterHost.httpAdapter?.getInstance<FastifyInstance>();
    // Callback style, deciding without a promise whether it applies: every request runs it.
    fastify?.addHook('onRequest', (request, reply, done) => {
      if (typeof request.headers.origin !== 'string' || !CAPTURE_PATH.test(request.url.split('?', 1)[0] ?? '')) return done();
      this.handle(request, reply).then(() => {
        if (!reply.sent) done();
      }, done);
    });
  }

  private async handle(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> {
    const origin = request.headers.origin;
    const [path = '', search = ''] = request.url.split('?', 2);
    if (typeof origin !== 'string' || !CAPTURE_PATH.test(path)) return undefined;
    void reply.header('vary', 'Origin');
    const key =
      new URLSearchParams(search).get('publishable_key') ??
      (typeof request.headers['x-publishable-key'] === 'string' ? request.headers['x-publishable-key'] : null);
    const applicationId = key ? await this.origins.applicationOfPublishableKey(key) : undefined;
    const allowed = applicationId !== undefined && (await this.origins.isAllowed(applicationId, origin));
    const preflight = request.method === 'OPTIONS' && request.headers['access-control-request-method'] !== undefined;
    if (!preflight) {
      if (allowed) void reply.header('access-control-allow-origin', origin);
      return undefined;
    }
    if (!allowed)
      return reply
        .code(403)
        .type('application/json')
        .send({ message: "This origin is not one of the application's allowed origins", reason_code: 'cors_origin_not_allowed' });
    return reply
      .code(204)
      .header('access-control-allow-origin', origin)
      .header('access-control-allow-methods', 'GET, POST, OPTIONS')
      .header('access-control-allow-headers', 'content-type, x-publishable-key')
      .header('access-control-max-age', '600')
      .send();
  }
}
