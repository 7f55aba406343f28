import { randomUUID } from 'node:crypto';
import { type INestApplication, type Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { ProcessConfig } from '@svc/config';
import { Metrics, PinoNestLogger, type Logger } from '@svc/telemetry';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { installBodyParsers } from './body/body-parsers';
import { HomeRegionPipe } from './home-region.pipe';
import { HttpErrorFilter, payloadTooLarge } from './http-error-filter';
import { MemoryAnswers } from './http-cache/memory-answers';
import { hasPendingIdempotentAnswer, settleIdempotentAnswer } from './idempotency/idempotency.interceptor';
import { captureRawBody } from './raw-body';
import { LOGGER } from './tokens';
import { strictValidationPipe } from './validation';

export interface HttpAppOptions {
  /** False leaves bodies unparsed (a proxy streams them on untouched). Default true. */
  bodyParser?: boolean;
  /** Called with the Fastify instance before routes are registered (hooks, content parsers). */
  configureFastify?: (fastify: FastifyInstance, app: NestFastifyApplication) => void | Promise<void>;
}

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;
/** Fastify's body limit for routes that set none of their own. */
const SERVER_BODY_LIMIT = 1_048_576;

/**
 * Creates a NestJS application on Fastify with the platform's edge: the error envelope for every
 * failure (including Fastify's body parsing), strict validation, request ids, HTTP metrics and
 * graceful shutdown. Call `listen` on the result.
 */
export async function createHttpApp(
  rootModule: Type<unknown> | ReturnType<typeof Object>,
  options: HttpAppOptions = {},
): Promise<NestFastifyApplication> {
  const adapter = new FastifyAdapter({
    logger: false,
    bodyLimit: SERVER_BODY_LIMIT,
    // Fastify answers 414 for longer path parameters; identifiers and tokens fit well inside this.
    routerOptions: { maxParamLength: 1_024 },
    genReqId: (req: { headers: Record<string, string | string[] | undefined> }) => {
      const header = req.headers['x-request-id'];
      return typeof header === 'string' && REQUEST_ID.test(header) ? header : randomUUID();
    },
    onProtoPoisoning: 'error',
    onConstructorPoisoning: 'error',
  });
  const app = await NestFactory.create<NestFastifyApplication>(rootModule as Type<unknown>, adapter, {
    bufferLogs: true,
    abortOnError: false,
    bodyParser: false,
  });
  const config = app.get(ProcessConfig);
  const logger = app.get<Logger>(LOGGER);
  const metrics = app.get(Metrics);
  app.useLogger(new PinoNestLogger(logger));
  app.useGlobalFilters(new HttpErrorFilter(logger));
  app.useGlobalPipes(new HomeRegionPipe(config), strictValidationPipe());
  app.enableShutdownHooks();

  const fastify = app.getHttpAdapter().getInstance();
  // The platform parses bodies itself (strict UTF-8, nesting limits, storable strings); Nest's own parsers stay off.
  if (options.bodyParser ?? true) installBodyParsers(fastify);
  // Callback style: every request runs it, and an async hook costs a promise each time.
  fastify.addHook('onRequest', (request, reply, done) => {
    void reply.header('x-request-id', String(request.id));
    done();
  });
  fastify.addHook('preParsing', async (request) => {
    const length = Number(request.headers['content-length'] ?? 0);
    if (length > bodyLimitOf(request, config.HTTP_BODY_LIMIT_BYTES)) {
      throw payloadTooLarge();
    }
  });
  fastify.addHook('preParsing', captureRawBody);
  // Stores the answer of a request whose Idempotency-Key was claimed before the answer leaves, so a
  // retry that arrives after it always finds it (or frees the key of a failed request).
  // This hook and the next are callback style: they run on every answer, the public documents
  // answered from memory included, where an async hook's promise is a measurable share of the cost.
  fastify.addHook('onSend', (request, reply, payload, done) => {
    if (!hasPendingIdempotentAnswer(request)) return done(null, payload);
    settleIdempotentAnswer(request, reply, payload)
      .catch((error: unknown) => {
        logger.error({ request_id: request.id, err: error }, 'storing an idempotent answer failed; its key is freed when its lock expires');
      })
      .then(() => done(null, payload), done);
  });
  fastify.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions?.url ?? 'unmatched';
    const labels = { method: request.method, route, status: String(reply.statusCode) };
    metrics.httpRequests.inc(labels);
    metrics.httpDuration.observe(labels, reply.elapsedTime / 1000);
    // Access log without headers, bodies or query strings: credentials never reach the log.
    logger.info(
      { request_id: request.id, method: request.method, route, status: reply.statusCode, ms: Math.round(reply.elapsedTime) },
      'request',
    );
    done();
  });
  // Before any route is registered: public documents answered from memory hook into their own routes.
  app.get(MemoryAnswers).install(fastify);
  await options.configureFastify?.(fastify, app);
  return app;
}

/**
 * The body limit a request is held to: the configured one, unless its route was registered with
 * a larger `bodyLimit` of its own (e.g. a feature's bulk import, set from an onRoute hook).
 */
function bodyLimitOf(request: FastifyRequest, configured: number): number {
  const own = request.routeOptions.bodyLimit;
  return own !== undefined && own > SERVER_BODY_LIMIT ? own : configured;
}

/** Listens on the configured host and port; returns the bound base URL. */
export async function listen(app: INestApplication, config: ProcessConfig): Promise<string> {
  await app.listen(config.HTTP_PORT, config.HTTP_HOST);
  const url = await app.getUrl();
  return url.replace('[::1]', '127.0.0.1');
}
