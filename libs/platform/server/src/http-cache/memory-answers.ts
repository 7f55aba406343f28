import { Injectable } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { Metrics } from '@svc/telemetry';
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
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
 * The hook is added from a feature's `onModuleInit`, after the process's own hooks (request id,
 * the residency guard): a foreign identifier in the path or the query is refused or redirected
 * before this hook, exactly as before the route.
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
  private readonly served = new Map<string, Served>();
  private readonly counter: ReturnType<Metrics['counter']>;
  private installed = false;

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    metrics: Metrics,
  ) {
    this.counter = metrics.counter(MEMORY_ANSWERS_METRIC, 'GET requests of public documents answered from memory before the route.', [
      'route',
    ]);
  }

  /**
   * Answers GETs of the route template `route` (as Fastify names it, e.g.
   * `/api/v1/agents/:agent_id/capabilities`) from `source` when it can. Call from `onModuleInit`.
   */
  serve(route: string, source: MemoryAnswerSource): void {
    this.served.set(route, { source, answered: this.counter.labels({ route }) });
    if (this.installed) return;
    const fastify = this.adapterHost.httpAdapter?.getInstance<FastifyInstance>();
    if (!fastify) return;
    this.installed = true;
    // Callback style: an async hook would cost a promise per request on every route.
    fastify.addHook('onRequest', (request, reply, done) => this.answer(request, reply, done));
  }

  private answer(request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void {
    if (request.method !== 'GET') return done();
    const served = this.served.get(request.routeOptions.url ?? '');
    if (!served) return done();
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
