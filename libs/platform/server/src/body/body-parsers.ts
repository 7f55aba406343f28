import { commonError } from '@svc/errors';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { parseJsonBody, refuseNonUtf8Charset } from './parse-json-body';
import { refuseUnstorableStrings } from './unstorable-strings';

/**
 * Route config (`@RouteConfig(FORM_BODY_ROUTE)` from @nestjs/platform-fastify) accepting an
 * `application/x-www-form-urlencoded` body, e.g. a third-party tool's webhook that posts forms.
 * Every other route takes JSON only and answers 415 to a form.
 */
export const FORM_BODY_ROUTE = { formBody: true } as const;

function acceptsForms(request: FastifyRequest): boolean {
  return (request.routeOptions.config as { formBody?: unknown } | undefined)?.formBody === true;
}

/**
 * Replaces Fastify's body parsing with the platform's: JSON through {@link parseJsonBody}, forms
 * only on routes that ask for them, and any other media type (or none, when a body is sent)
 * answered 415. Query strings and path parameters are held to the same string rule as bodies.
 */
export function installBodyParsers(fastify: FastifyInstance): void {
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    try {
      refuseNonUtf8Charset(request.headers['content-type']);
      done(null, parseJsonBody(body as Buffer));
    } catch (error) {
      done(error as Error, undefined);
    }
  });
  fastify.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'buffer' }, (request, body, done) => {
    try {
      if (!acceptsForms(request)) throw unsupportedMediaType();
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
