import type { Readable } from 'node:stream';
import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { commonError } from '@svc/errors';
import { errorCodes, type FastifyInstance, type FastifyRequest } from 'fastify';
import { parseJsonBody, refuseNonUtf8Charset } from './parse-json-body';
import { refuseUnstorableStrings } from './unstorable-strings';

/**
 * Route config (`@RouteConfig(FORM_BODY_ROUTE)` from @nestjs/platform-fastify) accepting an
 * `application/x-www-form-urlencoded` body, e.g. a third-party tool's webhook that posts forms.
 * Every other route takes JSON only and answers 415 to a form.
 */
export const FORM_BODY_ROUTE = { formBody: true } as const;

/**
 * Route config (`@RouteConfig(STREAMED_BODY_ROUTE)`) of a route that reads its body as it arrives
 * (a bulk upload): its handler receives the unread body through {@link StreamedRequestBody}, as
 * `application/json` or `application/x-ndjson` (which no other route accepts), so authentication
 * and every guard run before a byte of it is read, and nothing holds the whole body at once. The
 * reader enforces the route's body limit; the platform's Content-Length check still runs first.
 */
export const STREAMED_BODY_ROUTE = { streamedBody: true } as const;

const STREAMED = Symbol('svc.streamed-body');

/** Whether a request's body is a {@link StreamedBody} (still unread), not a parsed value. */
export function isStreamedBody(body: unknown): body is StreamedBody {
  return typeof body === 'object' && body !== null && (body as { [STREAMED]?: true })[STREAMED] === true;
}

/** The unread body of a {@link STREAMED_BODY_ROUTE} route. */
export interface StreamedBody {
  readonly mediaType: 'application/json' | 'application/x-ndjson';
  readonly stream: Readable;
  /** The route's body limit in bytes: a reader answers 413 payload_too_large beyond it. */
  readonly limitBytes: number;
}

/** Parameter decorator: the {@link StreamedBody} of a {@link STREAMED_BODY_ROUTE} route (undefined without a body). */
export const StreamedRequestBody = createParamDecorator(
  (_data: unknown, context: ExecutionContext): StreamedBody | undefined =>
    context.switchToHttp().getRequest<FastifyRequest>().body as StreamedBody | undefined,
);

function routeConfig(request: FastifyRequest): { formBody?: unknown; streamedBody?: unknown } | undefined {
  return request.routeOptions.config as { formBody?: unknown; streamedBody?: unknown } | undefined;
}

function streamed(mediaType: StreamedBody['mediaType'], stream: Readable, limitBytes: number): StreamedBody {
  return { mediaType, stream, limitBytes, [STREAMED]: true } as StreamedBody;
}

type Done = (error: Error | null, body?: unknown) => void;

/**
 * Reads a whole body within the route's limit, with Fastify's own errors for an oversized body
 * (413) and a Content-Length the bytes do not match (400), then parses it.
 */
function readWhole(request: FastifyRequest, payload: Readable, limit: number, parse: (bytes: Buffer) => unknown, done: Done): void {
  const declared = Number(request.headers['content-length']);
  if (declared > limit) return done(new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE());
  const chunks: Buffer[] = [];
  let received = 0;
  const finish = (error: Error | null, bytes?: Buffer): void => {
    payload.off('data', onData);
    payload.off('end', onEnd);
    payload.off('error', onError);
    if (error) return done(error);
    try {
      done(null, parse(bytes!));
    } catch (parseError) {
      done(parseError as Error);
    }
  };
  const onData = (chunk: Buffer): void => {
    received += chunk.length;
    if (received > limit) return finish(new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE());
    chunks.push(chunk);
  };
  const onEnd = (): void => {
    if (!Number.isNaN(declared) && received !== declared) return finish(new errorCodes.FST_ERR_CTP_INVALID_CONTENT_LENGTH());
    finish(null, chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, received));
  };
  // An aborted upload: a client error, never a 5xx.
  const onError = (error: Error & { statusCode?: number }): void =>
    finish(Object.assign(error, { statusCode: (error.statusCode ?? 0) >= 400 ? error.statusCode : 400 }));
  payload.on('data', onData);
  payload.on('end', onEnd);
  payload.on('error', onError);
  payload.resume();
}

/**
 * Replaces Fastify's body parsing with the platform's: JSON through {@link parseJsonBody}, forms
 * only on routes that ask for them, and any other media type (or none, when a body is sent)
 * answered 415. Query strings and path parameters are held to the same string rule as bodies.
 */
export function installBodyParsers(fastify: FastifyInstance): void {
  fastify.removeAllContentTypeParsers();
  // Read here rather than with Fastify's parseAs, so a streamed route can be handed its body unread.
  fastify.addContentTypeParser('application/json', (request, payload, done) => {
    const { config, bodyLimit } = request.routeOptions;
    try {
      refuseNonUtf8Charset(request.headers['content-type']);
    } catch (error) {
      return done(error as Error, undefined);
    }
    if ((config as { streamedBody?: unknown } | undefined)?.streamedBody === true) {
      return done(null, streamed('application/json', payload, bodyLimit));
    }
    readWhole(request, payload, bodyLimit, (bytes) => parseJsonBody(bytes), done);
  });
  fastify.addContentTypeParser('application/x-ndjson', (request, payload, done) => {
    try {
      if (routeConfig(request)?.streamedBody !== true) throw unsupportedMediaType();
      refuseNonUtf8Charset(request.headers['content-type']);
      done(null, streamed('application/x-ndjson', payload, request.routeOptions.bodyLimit));
    } catch (error) {
      done(error as Error, undefined);
    }
  });
  fastify.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'buffer' }, (request, body, done) => {
    try {
      if (routeConfig(request)?.formBody !== true) throw unsupportedMediaType();
      const form = parseForm((body as Buffer).toString('utf8'));
      refuseUnstorableStrings(form);
      done(null, form);
    } catch (error) {
      done(error as Error, undefined);
    }
  });
  fastify.addHook('preValidation', async (request) => {
    refuseUnstorableStrings(request.params);
    refuseUnstorableStrings(request.query);
  });
}

/** A form as an object; a repeated name becomes an array of its values. */
function parseForm(text: string): Record<string, string | string[]> {
  const form = new Map<string, string | string[]>();
  for (const [name, value] of new URLSearchParams(text)) {
    const previous = form.get(name);
    form.set(name, previous === undefined ? value : Array.isArray(previous) ? [...previous, value] : [previous, value]);
  }
  // fromEntries defines own properties, so a field named __proto__ stays a plain field.
  return Object.fromEntries(form);
}

export function unsupportedMediaType(): Error {
  return commonError('unsupported_media_type', 'Content-Type is not supported; send application/json');
}
