import { type CallHandler, type ExecutionContext, Injectable, type NestInterceptor } from '@nestjs/common';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Observable } from 'rxjs';

/** When POST /api/v1/consent_sessions was deprecated: 2026-01-01T00:00:00Z (RFC 9745 `@<epoch seconds>`). */
export const CONSENT_SESSIONS_DEPRECATED_AT = '@1767225600';
/** When it stops answering (RFC 8594 HTTP-date). The spec leaves the date open; this is ours. */
export const CONSENT_SESSIONS_SUNSET = 'Thu, 01 Jul 2027 00:00:00 GMT';

/** The deprecated alias family: `/api/v1/consent_sessions` and anything under it. */
const DEPRECATED_ALIAS = /^\/api\/v1\/consent_sessions(\/|\?|$)/;

function markDeprecated(reply: FastifyReply): void {
  void reply.header('Deprecation', CONSENT_SESSIONS_DEPRECATED_AT);
  void reply.header('Sunset', CONSENT_SESSIONS_SUNSET);
  void reply.header('Link', '</api/v1/decisions>; rel="successor-version"');
}

/**
 * Marks every response of the deprecated alias family from the first hook of the request, so the
 * answers produced before any handler runs carry the headers too: 401 and 403 of the guard, 415
 * and malformed JSON of the body parser, 404 of an unknown method or sub-path, 429.
 */
export function markDeprecatedAliases(fastify: FastifyInstance): void {
  fastify.addHook('onRequest', (request, reply, done) => {
    if (DEPRECATED_ALIAS.test(request.url)) markDeprecated(reply);
    done();
  });
}

/**
 * Marks every response of the deprecated consent_sessions alias (success, validation and domain
 * errors alike) with Deprecation (RFC 9745), Sunset (RFC 8594) and a Link to its successor — also
 * where the controller runs without the process hook ({@link markDeprecatedAliases}).
 */
@Injectable()
export class DeprecatedAliasHeaders implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    markDeprecated(context.switchToHttp().getResponse<FastifyReply>());
    return next.handle();
  }
}
