import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';

/** Path of the import endpoint, whose body may be far larger than other routes' (1 MiB). */
export const IMPORTS_PATH = '/api/v1/consent_records/imports';
/** Largest import request body: 64 MiB, room for 100,000 (MAX_IMPORT_ROWS) typical rows (~260 bytes each). */
export const IMPORT_BODY_LIMIT_BYTES = 64 * 1_048_576;
/** The 413 message of an import body over the limit, whether refused by its Content-Length or as it arrives. */
export const IMPORT_BODY_TOO_LARGE = `An import request body may hold at most 64 MiB (${IMPORT_BODY_LIMIT_BYTES} bytes); split the rows into several imports`;

function tooLarge(reply: FastifyReply, message: string, detail: Record<string, unknown>): FastifyReply {
  return reply
    .header('cache-control', 'no-store')
    .header('connection', 'close')
    .status(413)
    .send({ message, reason_code: 'payload_too_large', detail });
}

/** Refuses a declared body over the import limit before a byte of it is read. */
async function refuseOversizedBody(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const length = Number(request.headers['content-length'] ?? 0);
  if (length > IMPORT_BODY_LIMIT_BYTES) {
    return void tooLarge(reply, IMPORT_BODY_TOO_LARGE, {
      limit_bytes: IMPORT_BODY_LIMIT_BYTES,
      content_length: length,
    });
  }
}

const hooks = <T>(existing: T | T[] | undefined, added: T): T[] => [
  ...(existing === undefined ? [] : Array.isArray(existing) ? existing : [existing]),
  added,
];

/**
 * Gives POST /api/v1/consent_records/imports its own body limit, leaving every other route at the
 * platform's: 64 MiB (the route's bodyLimit, honoured by the platform's early Content-Length check
 * and by the import's streamed reader), exceeded answering 413 payload_too_large like any
 * oversized body, with the limit in the message and detail. The row limit is the reader's.
 */
export function configureImportRoute(fastify: FastifyInstance): void {
  fastify.addHook('onRoute', (route: RouteOptions) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (route.url !== IMPORTS_PATH || !methods.includes('POST')) return;
    route.bodyLimit = IMPORT_BODY_LIMIT_BYTES;
    route.onRequest = hooks(route.onRequest, refuseOversizedBody);
  });
}
