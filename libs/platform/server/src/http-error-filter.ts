import { type ArgumentsHost, Catch, type ExceptionFilter, HttpException } from '@nestjs/common';
import { commonError, DomainError, type ErrorEnvelope, HTTP_STATUS_BY_KIND, isDependencyUnavailable } from '@svc/errors';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from '@svc/telemetry';

const CODE_BY_STATUS: Record<number, string> = {
  400: 'invalid_request',
  401: 'unauthenticated',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  409: 'conflict',
  410: 'gone',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  421: 'wrong_region',
  422: 'validation_failed',
  429: 'rate_limited',
  503: 'service_unavailable',
};

/** Fastify's own request errors (body parsing, content type), mapped to the spec's 4xx statuses. */
const FASTIFY_ERRORS: Record<string, { status: number; code: string; message: string }> = {
  FST_ERR_CTP_INVALID_JSON_BODY: { status: 400, code: 'malformed_json', message: 'Request body is not valid JSON' },
  FST_ERR_CTP_EMPTY_JSON_BODY: { status: 400, code: 'malformed_json', message: 'Request body is empty but declared as JSON' },
  FST_ERR_CTP_BODY_TOO_LARGE: { status: 413, code: 'payload_too_large', message: 'Request body exceeds the size limit' },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: {
    status: 415,
    code: 'unsupported_media_type',
    message: 'Content-Type is not supported; send application/json',
  },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { status: 400, code: 'invalid_request', message: 'Content-Length does not match the body' },
  FST_ERR_CTP_INVALID_TYPE: { status: 415, code: 'unsupported_media_type', message: 'Content-Type is not supported' },
};

/** Reason codes answered with a more precise status than their error kind's 400. */
const STATUS_BY_CODE: Readonly<Record<string, number>> = { payload_too_large: 413, unsupported_media_type: 415 };

/** An oversized request body: 413 payload_too_large. */
export function payloadTooLarge(detail?: Record<string, unknown>): DomainError {
  return commonError('payload_too_large', 'Request body exceeds the size limit', detail);
}

/**
 * Postgres refused a value as data (SQLSTATE class 22: U+0000 in text 22021, an unstorable \u0000
 * escape 22P05, invalid text representation 22P02, out of range 22003, …). The edge refuses such
 * input first; this backstop keeps a value that slips through a client error, never a 500.
 */
function isDataException(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code ?? (error as { cause?: { code?: unknown } } | null)?.cause?.code;
  return error instanceof Error && typeof code === 'string' && /^22[0-9A-Z]{3}$/.test(code);
}

function fastifyParseError(error: HttpException): { status: number; code: string; message: string } | undefined {
  const status = error.getStatus();
  if (status === 413) return FASTIFY_ERRORS.FST_ERR_CTP_BODY_TOO_LARGE;
  if (status === 415) return FASTIFY_ERRORS.FST_ERR_CTP_INVALID_MEDIA_TYPE;
  if (status === 400 && /json|__proto__|constructor/i.test(error.message)) {
    return { status: 400, code: 'malformed_json', message: 'Request body is not valid JSON' };
  }
  return undefined;
}

/** `Retry-After` of a 503 that sets none of its own: dependencies (bus, database) usually return within seconds. */
export const SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS = '5';

export interface MappedError {
  status: number;
  envelope: ErrorEnvelope;
  headers?: Readonly<Record<string, string>>;
}

/**
 * Maps anything thrown while serving a request to a status and the spec's envelope. Unknown
 * errors become a bare 500 with a correlation id: no stack, SQL or internal message reaches a client.
 */
export function mapError(error: unknown, requestId: string): MappedError {
  if (error instanceof DomainError) {
    return { status: STATUS_BY_CODE[error.code] ?? HTTP_STATUS_BY_KIND[error.kind], envelope: error.toEnvelope(), headers: error.headers };
  }
  if (isDataException(error)) {
    return { status: 400, envelope: { message: 'A value of the request cannot be stored', reason_code: 'invalid_request' } };
  }
  if (isDependencyUnavailable(error)) {
    return {
      status: 503,
      envelope: { message: 'A dependency of the service is unavailable; retry later', reason_code: 'service_unavailable' },
    };
  }
  if (error instanceof HttpException) {
    // Nest rethrows Fastify's body-parsing errors as HttpException(message, statusCode).
    const fastify = fastifyParseError(error);
    if (fastify) return { status: fastify.status, envelope: { message: fastify.message, reason_code: fastify.code } };
    const status = error.getStatus();
    const response = error.getResponse();
    const message =
      status === 404
        ? 'No such route'
        : typeof response === 'string'
          ? response
          : (((response as { message?: unknown }).message as string) ?? error.message);
    return {
      status,
      envelope: { message: String(message), reason_code: status === 404 ? 'route_not_found' : (CODE_BY_STATUS[status] ?? 'error') },
    };
  }
  const fastifyCode = (error as { code?: unknown })?.code;
  if (typeof fastifyCode === 'string' && FASTIFY_ERRORS[fastifyCode]) {
    const known = FASTIFY_ERRORS[fastifyCode];
    return { status: known.status, envelope: { message: known.message, reason_code: known.code } };
  }
  if (error instanceof SyntaxError && (error as { statusCode?: number }).statusCode === 400) {
    return { status: 400, envelope: { message: 'Request body is not valid JSON', reason_code: 'malformed_json' } };
  }
  const statusCode = (error as { statusCode?: unknown })?.statusCode;
  if (typeof statusCode === 'number' && statusCode >= 400 && statusCode < 500) {
    const status = [400, 401, 403, 404, 422, 429].includes(statusCode) ? statusCode : 400;
    return {
      status,
      envelope: { message: 'Request could not be processed', reason_code: CODE_BY_STATUS[statusCode] ?? 'invalid_request' },
    };
  }
  return {
    status: 500,
    envelope: { message: 'Internal error', reason_code: 'internal_error', detail: { correlation_id: requestId } },
  };
}

/** Sends a mapped error, logging server faults with their stack (the client never sees it). */
export function sendError(error: unknown, request: FastifyRequest, reply: FastifyReply, logger: Logger): void {
  const mapped = mapError(error, String(request.id));
  if (mapped.status >= 500) {
    logger.error({ err: error, request_id: request.id, method: request.method, url: request.routeOptions?.url }, 'request failed');
  }
  if (reply.sent) return;
  if (mapped.status === 503) void reply.header('retry-after', SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS);
  for (const [name, value] of Object.entries(mapped.headers ?? {})) void reply.header(name, value);
  // The rest of an oversized body is never read: close the socket rather than keep a half-sent upload alive.
  if (mapped.status === 413) void reply.header('connection', 'close');
  void reply.header('cache-control', 'no-store').status(mapped.status).send(mapped.envelope);
}

/** Nest's side of the error edge: everything thrown by guards, pipes and handlers. */
@Catch()
export class HttpErrorFilter implements ExceptionFilter {
  constructor(private readonly logger: Logger) {}

  catch(error: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    sendError(error, http.getRequest<FastifyRequest>(), http.getResponse<FastifyReply>(), this.logger);
  }
}
