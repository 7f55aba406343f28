import type { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { request as undiciRequest } from 'undici';
import { serviceForPath, type ServiceName } from './route-table';

/**
 * Largest body the router forwards (the largest any route accepts: a bulk consent import). Bodies
 * are streamed, never buffered here, and the owning service holds each route to its own limit.
 */
export const PROXIED_BODY_LIMIT_BYTES = 64 * 1_048_576;

const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
  'content-length',
]);

/**
 * Takes the instances of each service in turn (round robin), as a Kubernetes Service spreads
 * connections over a Deployment's replicas: a service given one URL always gets that URL.
 */
export function roundRobin(
  upstreams: Partial<Record<ServiceName, string | readonly string[]>>,
): (service: ServiceName) => string | undefined {
  const turns = new Map<ServiceName, number>();
  return (service) => {
    const configured = upstreams[service];
    const urls = typeof configured === 'string' ? [configured] : (configured ?? []);
    if (urls.length === 0) return undefined;
    const turn = turns.get(service) ?? 0;
    turns.set(service, (turn + 1) % urls.length);
    return urls[turn % urls.length];
  };
}

/**
 * Forwards every request the router does not answer itself to the owning service, streaming the
 * body unchanged (signatures over raw bodies must survive the hop). A service with several
 * instances gets its requests in turn ({@link roundRobin}).
 */
export function installProxy(
  fastify: FastifyInstance,
  upstreams: Partial<Record<ServiceName, string | readonly string[]>>,
  self: ServiceName = 'residency-router',
): void {
  const next = roundRobin(upstreams);
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser('*', (_request, payload, done) => done(null, payload));
  const forward = async (request: import('fastify').FastifyRequest, reply: import('fastify').FastifyReply) => {
    const path = request.url.split('?', 1)[0] ?? '/';
    const service = serviceForPath(path);
    const base = service && service !== self ? next(service) : undefined;
    if (!base) {
      return reply.status(404).header('cache-control', 'no-store').send({ message: 'No such route', reason_code: 'route_not_found' });
    }
    const headers: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(request.headers)) {
      if (value !== undefined && !HOP_BY_HOP.has(name)) headers[name] = value;
    }
    headers['x-forwarded-for'] = request.ip;
    headers['x-request-id'] = String(request.id);
    const hasBody = request.method !== 'GET' && request.method !== 'HEAD' && request.body !== undefined;
    const upstream = await undiciRequest(`${base}${request.url}`, {
      method: request.method as 'GET',
      headers,
      body: hasBody ? (request.body as Readable) : undefined,
      headersTimeout: 30_000,
      bodyTimeout: 30_000,
    });
    reply.status(upstream.statusCode);
    for (const [name, value] of Object.entries(upstream.headers)) {
      if (value !== undefined && !HOP_BY_HOP.has(name)) void reply.header(name, value);
    }
    return reply.send(upstream.body);
  };
  fastify.all('/*', { bodyLimit: PROXIED_BODY_LIMIT_BYTES }, forward);
  fastify.all('/', forward);
}
