import type { FastifyRequest } from 'fastify';
import { peopleError } from './people.errors';

/**
 * Refuses a browser call of a signed-in person's page that comes from another site: an `Origin`
 * other than this deployment's (or the request's own host), an opaque `null` origin, or
 * `Sec-Fetch-Site: cross-site`. The sign-in cookie is SameSite=Lax; this closes the rest.
 */
export function assertSameOrigin(request: FastifyRequest, ownOrigin: string): void {
  const origin = request.headers.origin;
  const ownOrigins = [ownOrigin, `${request.protocol}://${request.headers.host ?? ''}`];
  if ((typeof origin === 'string' && !ownOrigins.includes(origin)) || request.headers['sec-fetch-site'] === 'cross-site') {
    throw peopleError('origin_not_allowed', 'Cross-origin requests are not accepted here');
  }
}
