import { type CallHandler, type ExecutionContext, Injectable, type NestInterceptor } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import type { Observable } from 'rxjs';

/** When POST /api/v1/consent_sessions was deprecated: 2026-01-01T00:00:00Z (RFC 9745 `@<epoch seconds>`). */
export const CONSENT_SESSIONS_DEPRECATED_AT = '@1767225600';
/** When it stops answering (RFC 8594 HTTP-date). The spec leaves the date open; this is ours. */
export const CONSENT_SESSIONS_SUNSET = 'Thu, 01 Jul 2027 00:00:00 GMT';

/**
 * Marks every response of the deprecated consent_sessions alias (success, validation and domain
 * errors alike) with Deprecation (RFC 9745), Sunset (RFC 8594) and a Link to its successor.
 * Interceptors run before pipes, so even a 400 from validation carries the headers.
 */
@Injectable()
export class DeprecatedAliasHeaders implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const reply = context.switchToHttp().getResponse<FastifyReply>();
    void reply.header('Deprecation', CONSENT_SESSIONS_DEPRECATED_AT);
    void reply.header('Sunset', CONSENT_SESSIONS_SUNSET);
    void reply.header('Link', '</api/v1/decisions>; rel="successor-version"');
    return next.handle();
  }
}
