import { Injectable } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { Metrics } from '@svc/telemetry';
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction, RouteOptions, onRequestHookHandler } from 'fastify';
import { ifNoneMatches } from './document-cache';

/** A public document as its route answers it, ready in memory. */
export interface MemoryAnswer {
  /** Strong entity tag, sent first on the 200 and the 304. */
  etag: string;
  /** Headers the route sends after the ETag on the 200 and the 304, in its order. */
  headers: Readonly<Record<string, string>>;
  /** Content-Type of the 200, sent after {@link headers}. */
  contentType: string;
  /** Exact bytes of the 200. */
  body: string;
}

/**
 * The answer of a GET of the route from memory, or undefined to leave the request to the route
 * (cache cold, anything the route must decide itself). Synchronous: it never waits for anything.
 */
export type MemoryAnswerSource = (request: FastifyRequest) => MemoryAnswer | undefined;

interface Served {
  source: MemoryAnswerSource;
  /** The route's series of the counter. */
  answered: { inc(): void };
}

/** Requests answered from memory before the route's handler, by route template. */
export const MEMORY_ANSWERS_METRIC = 'http_memory_answers_total';

/**
 * Answers GETs of public, cacheable documents from memory in one Fastify `onRequest` hook, before
 * Nest's pipeline (guards, interceptors, pipes, filters): 304 when If-None-Match matches the
 * document's ETag, else 200 with its bytes — the status, headers and bytes the route itself sends.
 * A request the source cannot answer (cache cold, HEAD and other methods) reaches the route as before.
 *
 * The hook is the route's own `onRequest` hook, so it runs after every process-wide `onRequest`
 * hook (request id, the residency guard, CORS): a foreign identifier in the path or the query is
 * refused or redirected before it, exactly as before the route, and other routes pay nothing for
 * it. {@link install} (called by `createHttpApp` before any route is registered) notes each GET
 * route's options; {@link serve}, called from a feature's `onModuleInit`, adds the hook to them
 * before Fastify builds its routes. A route it did not see (a Fastify instance without
 * {@link install}) is served by one process-wide `onRequest` hook added last, as before.
 *
 * Observability trade-off: an answer from memory still passes Fastify's `onSend` and `onResponse`
 * hooks, so `http_requests_total`, `http_request_duration_seconds` and the access log count it
 * under its route template, and the HTTP server span (instrumented below Fastify) is unchanged.
 * What it skips is Nest: no guard, interceptor or filter runs, so anything one of them records for
 * these routes is not recorded. `http_memory_answers_total{route}` counts the answers given here
 * (one counter increment), so the share served from memory stays visible.
 */
@Injectable()
export class MemoryAnswers {
  /** Served routes reached through the process-wide fallback hook. */
  private readonly served = new Map<string, Served>();
  /** Options of the GET routes registered since {@link install}, by route template. */
  private readonly routes = new Map<string, RouteOptions>();
  private readonly counter: ReturnType<Metrics['counter']>;
  private fallbackInstalled = false;

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    metrics: Metrics,
  ) {
    this.counter = metrics.counter(MEMORY_ANSWERS_METRIC, 'GET requests of public documents answered from memory before the route.', [
      'route',
    ]);
  }

  /** Notes the options of every GET route `fastify` registers from now on. Call before routes are registered. */
  install(fastify: FastifyInstance): void {
    fastify.addHook('onRoute', (options) => {
      const methods = Array.isArray(options.method) ? options.method : [options.method];
      if (methods.includes('GET')) this.routes.set(options.url, options);
    });
  }

  /**
   * Answers GETs of the route template `route` (as Fastify names it, e.g.
   * `/api/v1/agents/:agent_id/capabilities`) from `source` when it can. Call from `onModuleInit`.
   */
  serve(route: string, source: MemoryAnswerSource): void {
    const served: Served = { source, answered: this.counter.labels({ route }) };
    const options = this.routes.get(route);
    if (options) {
      // Callback style: an async hook would cost a promise per request. A new array: a HEAD route
      // Fastify derived from this one may share the old one.
      const hook: onRequestHookHandler = (request, reply, done) => answerFrom(served, request, reply, done);
      const own = options.onRequest;
      options.onRequest = own === undefined ? [hook] : [...(Array.isArray(own) ? own : [own]), hook];
      return;
    }
    this.served.set(route, served);
    if (this.fallbackInstalled) return;
    const fastify = this.adapterHost.httpAdapter?.getInstance<FastifyInstance>();
    if (!fastify) return;
    this.fallbackInstalled = true;
    fastify.addHook('onRequest', (request, reply, done) => {
      const fallback = this.served.get(request.routeOptions.url ?? '');
      if (!fallback) return done();
      answerFrom(fallback, request, reply, done);
    });
  }
}

function answerFrom(served: Served, request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void {
  if (request.method !== 'GET') return done();
  let answer: MemoryAnswer | undefined;
  try {
    answer = served.source(request);
  } catch {
    // The route decides (and reports) whatever the source could not.
    answer = undefined;
  }
  if (!answer) return done();
  served.answered.inc();
  sendMemoryAnswer(request, reply, answer);
}

/** Sends `answer` as its route does: the headers, then 304 if If-None-Match matches, else 200 with the bytes. */
export function sendMemoryAnswer(request: FastifyRequest, reply: FastifyReply, answer: MemoryAnswer): void {
  void reply.header('etag', answer.etag).headers(answer.headers);
  if (ifNoneMatches(request.headers['if-none-match'], answer.etag)) {
    void reply.status(304).send();
    return;
  }
  void reply.status(200).header('content-type', answer.contentType).send(answer.body);
}
