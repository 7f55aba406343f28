import { DomainError } from '@svc/errors';
import { createLogger } from '@svc/telemetry';
import Fastify, { type FastifyInstance } from 'fastify';
import { SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS, sendError } from './http-error-filter';

/** Issue 14 item 8: a client told "unavailable" is always told when to come back. */
describe('503 answers', () => {
  let app: FastifyInstance;

  beforeAll(async () => {
    const logger = createLogger({ service: 'test', region: 'us', level: 'silent' });
    app = Fastify();
    app.setErrorHandler((error, request, reply) => sendError(error, request, reply, logger));
    app.get('/bus-down', async () => {
      throw new DomainError('unavailable', 'service_unavailable', 'Upstream gateway.resolve_credential did not answer');
    });
    app.get('/own-retry-after', async () => {
      throw new DomainError('unavailable', 'service_unavailable', 'busy', undefined, { 'Retry-After': '30' });
    });
    app.get('/not-found', async () => {
      throw new DomainError('not_found', 'record_not_found', 'no such record');
    });
    await app.ready();
  });

  afterAll(() => app.close());

  it('carry Retry-After', async () => {
    const response = await app.inject({ method: 'GET', url: '/bus-down' });
    expect(response.statusCode).toBe(503);
    expect(response.headers['retry-after']).toBe(SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS);
    expect(response.json()).toMatchObject({ reason_code: 'service_unavailable' });
  });

  it('keep a Retry-After the error sets itself', async () => {
    expect((await app.inject({ method: 'GET', url: '/own-retry-after' })).headers['retry-after']).toBe('30');
  });

  it('are the only errors given one by default', async () => {
    expect((await app.inject({ method: 'GET', url: '/not-found' })).headers['retry-after']).toBeUndefined();
  });
});
