import { Transform, pipeline } from 'node:stream';
import type { FastifyReply, FastifyRequest, RequestPayload } from 'fastify';

/**
 * Route config (`@RouteConfig(RAW_BODY_ROUTE)` from @nestjs/platform-fastify) asking for the
 * request body's exact bytes as well as the parsed JSON, e.g. to verify a sender's HMAC over them.
 * Other routes keep only the parsed body.
 */
export const RAW_BODY_ROUTE = { rawBody: true } as const;

const RAW_BODY = Symbol('rawBody');
type WithRawBody = FastifyRequest & { [RAW_BODY]?: Buffer };

/** The body bytes as received, on a route configured with {@link RAW_BODY_ROUTE}; undefined elsewhere or without a body. */
export function rawBodyOf(request: FastifyRequest): Buffer | undefined {
  return (request as WithRawBody)[RAW_BODY];
}

/**
 * preParsing hook: on routes configured with {@link RAW_BODY_ROUTE}, passes the payload through
 * unchanged while keeping a copy of its bytes. Fastify's own limits and Content-Length check still
 * apply to the bytes read, and the parsed body is what the JSON parser makes of the same bytes.
 */
export async function captureRawBody(request: FastifyRequest, _reply: FastifyReply, payload: RequestPayload): Promise<RequestPayload> {
  const config = request.routeOptions.config as { rawBody?: unknown } | undefined;
  if (config?.rawBody !== true) return payload;
  const chunks: Buffer[] = [];
  const copy = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      chunks.push(chunk);
      done(null, chunk);
    },
    flush(done) {
      (request as WithRawBody)[RAW_BODY] = Buffer.concat(chunks);
      done();
    },
  });
  // An aborted upload destroys the copy too, so the parser fails (400) instead of waiting.
  pipeline(payload, copy, () => undefined);
  return copy as unknown as RequestPayload;
}
