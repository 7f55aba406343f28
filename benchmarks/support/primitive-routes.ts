import { generateKeyPairSync, randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import { SignJWT } from 'jose';

/** The ETag the bare cached route answers 304 to. */
export const BARE_ETAG = '"bench-bare-etag"';

/**
 * The primitives of the HTTP benchmarks, served by a bare Fastify instance in the same process as
 * the region (same pinning, same event loop budget):
 * - `POST /sign`: parses the JSON body and answers 201 with a JWT signed by `jose` (EdDSA): the
 *   floor of a route that answers with a signature, as a grant does.
 * - `GET /cached`: answers 304 when If-None-Match is {@link BARE_ETAG}, else 200 with a small JSON
 *   body: the floor of a cacheable public document.
 */
export async function startPrimitiveRoutes(): Promise<{ url: string; close: () => Promise<void> }> {
  const app: FastifyInstance = Fastify({ logger: false });
  const { privateKey } = generateKeyPairSync('ed25519');
  const cached = JSON.stringify({ document: 'bench', version: 1 });
  app.post('/sign', async (request, reply) => {
    const body = request.body as Record<string, unknown>;
    const token = await new SignJWT({ sub: String(body.agent_id ?? ''), scope: body.scope, jti: randomUUID() })
      .setProtectedHeader({ alg: 'EdDSA' })
      .setIssuedAt()
      .sign(privateKey);
    return reply.status(201).send({ token });
  });
  app.get('/cached', (request, reply) => {
    void reply.header('etag', BARE_ETAG).header('cache-control', 'public, max-age=300');
    if (request.headers['if-none-match'] === BARE_ETAG) return reply.status(304).send();
    return reply.status(200).header('content-type', 'application/json; charset=utf-8').send(cached);
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, close: () => app.close() };
}
