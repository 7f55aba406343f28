import type { HttpAdapterHost } from '@nestjs/core';
import { Metrics } from '@svc/telemetry';
import Fastify, { type FastifyInstance } from 'fastify';
import { MEMORY_ANSWERS_METRIC, MemoryAnswers, sendMemoryAnswer, type MemoryAnswer } from './memory-answers';

const ROUTE = '/documents/:id';
const ANSWER: MemoryAnswer = {
  etag: '"abc"',
  headers: { 'cache-control': 'public, max-age=300', 'access-control-allow-origin': '*' },
  contentType: 'application/json; charset=utf-8',
  body: '{"id":"1"}',
};

describe('MemoryAnswers', () => {
  let fastify: FastifyInstance;
  let metrics: Metrics;
  let cached: Map<string, MemoryAnswer>;
  let routeCalls: number;

  beforeEach(async () => {
    fastify = Fastify({ logger: false });
    metrics = new Metrics({ service: 'test', region: 'us' });
    cached = new Map();
    routeCalls = 0;
    // The route itself: the same answer, or 404 when nothing is there.
    fastify.get(ROUTE, (request, reply) => {
      routeCalls += 1;
      const answer = cached.get((request.params as { id: string }).id);
      if (!answer) return reply.status(404).send();
      sendMemoryAnswer(request, reply, answer);
      return reply;
    });
    fastify.post(ROUTE, (_request, reply) => {
      routeCalls += 1;
      return reply.status(201).send();
    });
    const answers = new MemoryAnswers({ httpAdapter: { getInstance: () => fastify } } as unknown as HttpAdapterHost, metrics);
    answers.serve(ROUTE, (request) => {
      const id = (request.params as { id: string }).id;
      if (id === 'throws') throw new Error('source failed');
      // Lets a test reach the route with the same cache, to compare the two answers.
      if (request.headers['x-via-route'] !== undefined) return undefined;
      return cached.get(id);
    });
    await fastify.ready();
  });
  afterEach(() => fastify.close());

  const answered = async () => (await metrics.registry.getSingleMetricAsString(MEMORY_ANSWERS_METRIC)).match(/ (\d+)$/m)?.[1];

  it('answers 304 and 200 from memory with the headers and bytes of the route, counting them', async () => {
    cached.set('1', ANSWER);
    const fromRoute = await fastify.inject({ method: 'GET', url: '/documents/1', headers: { 'if-none-match': '"abc"' } });
    expect(routeCalls).toBe(0);
    expect(fromRoute.statusCode).toBe(304);
    expect(fromRoute.body).toBe('');
    expect(fromRoute.headers).toMatchObject({ etag: '"abc"', 'cache-control': 'public, max-age=300', 'access-control-allow-origin': '*' });
    const full = await fastify.inject({ method: 'GET', url: '/documents/1', headers: { 'if-none-match': '"other"' } });
    expect([full.statusCode, full.body, full.headers['content-type'], full.headers.etag]).toEqual([
      200,
      ANSWER.body,
      ANSWER.contentType,
      '"abc"',
    ]);
    expect(routeCalls).toBe(0);
    expect(await answered()).toBe('2');
  });

  it('gives the same status, headers and bytes as the route', async () => {
    cached.set('1', ANSWER);
    for (const headers of [{}, { 'if-none-match': '"abc"' }, { 'if-none-match': 'W/"x", "abc"' }, { 'if-none-match': '*' }]) {
      const memory = await fastify.inject({ method: 'GET', url: '/documents/1', headers });
      const route = await fastify.inject({ method: 'GET', url: '/documents/1', headers: { ...headers, 'x-via-route': '1' } });
      expect(route.statusCode).toBe(memory.statusCode);
      expect(route.rawPayload.equals(memory.rawPayload)).toBe(true);
      const { date: _memoryDate, ...memoryHeaders } = memory.headers;
      const { date: _routeDate, ...routeHeaders } = route.headers;
      expect(Object.entries(routeHeaders)).toEqual(Object.entries(memoryHeaders));
    }
    expect(routeCalls).toBe(4);
  });

  it('leaves to the route what memory cannot answer: a cold cache, a failing source, HEAD and other methods', async () => {
    expect((await fastify.inject({ method: 'GET', url: '/documents/2' })).statusCode).toBe(404);
    expect((await fastify.inject({ method: 'GET', url: '/documents/throws' })).statusCode).toBe(404);
    cached.set('1', ANSWER);
    expect((await fastify.inject({ method: 'POST', url: '/documents/1' })).statusCode).toBe(201);
    const head = await fastify.inject({ method: 'HEAD', url: '/documents/1' });
    expect(head.statusCode).toBe(200);
    expect(routeCalls).toBe(4);
    expect(await answered()).toBeUndefined();
  });
});

describe('MemoryAnswers installed before the routes', () => {
  it("answers through the route's own onRequest hook, after every process-wide one, and leaves other routes alone", async () => {
    const fastify = Fastify({ logger: false });
    const metrics = new Metrics({ service: 'test', region: 'us' });
    const answers = new MemoryAnswers({ httpAdapter: { getInstance: () => fastify } } as unknown as HttpAdapterHost, metrics);
    answers.install(fastify);
    const order: string[] = [];
    let routeCalls = 0;
    fastify.get(ROUTE, (_request, reply) => {
      routeCalls += 1;
      return reply.status(404).send();
    });
    fastify.get('/other/:id', (_request, reply) => reply.status(204).send());
    // A process-wide hook added after the routes (as features add theirs from onModuleInit) runs first.
    answers.serve(ROUTE, (request) => {
      order.push('memory');
      return (request.params as { id: string }).id === '1' ? ANSWER : undefined;
    });
    fastify.addHook('onRequest', (_request, _reply, done) => {
      order.push('process');
      done();
    });
    await fastify.ready();
    try {
      const hit = await fastify.inject({ method: 'GET', url: '/documents/1', headers: { 'if-none-match': '"abc"' } });
      expect([hit.statusCode, hit.headers.etag, routeCalls]).toEqual([304, '"abc"', 0]);
      expect(order).toEqual(['process', 'memory']);
      expect((await fastify.inject({ method: 'GET', url: '/documents/2' })).statusCode).toBe(404);
      expect((await fastify.inject({ method: 'HEAD', url: '/documents/1' })).statusCode).toBe(404);
      expect(routeCalls).toBe(2);
      order.length = 0;
      expect((await fastify.inject({ method: 'GET', url: '/other/1' })).statusCode).toBe(204);
      expect(order).toEqual(['process']);
      expect((await metrics.registry.getSingleMetricAsString(MEMORY_ANSWERS_METRIC)).match(/ (\d+)$/m)?.[1]).toBe('1');
    } finally {
      await fastify.close();
    }
  });
});
