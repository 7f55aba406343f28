import 'reflect-metadata';
import { SetMetadata, type Type } from '@nestjs/common';

export const API_DOC = 'svc:api-doc';
export const API_RESPONSE_OF = 'svc:api-response-of';

/** Request headers an operation reads, declared once under `components.parameters`. */
export type DocumentedRequestHeader = 'Idempotency-Key' | 'DPoP';

/** Extra documentation of a route for the OpenAPI document. */
export interface ApiDocOptions {
  summary?: string;
  description?: string;
  tag?: string;
  /** Description of the success response. */
  response?: string;
  /** Error statuses the route can answer; defaults are derived from auth and body. */
  errors?: number[];
  /** Request headers the route reads (`Idempotency-Key`, `DPoP`). */
  headers?: DocumentedRequestHeader[];
  /** Answers may replay a stored response, marked `Idempotent-Replayed: true`. */
  replays?: boolean;
  /** The route authenticates a DPoP-bound agent token itself (`Authorization: DPoP ra_agent_…` plus a proof). */
  agentToken?: boolean;
  /** A deprecated alias: every answer carries `Deprecation`, `Sunset` and a successor `Link`. */
  deprecated?: boolean;
  /** The success status of a route that sets it on the reply itself (e.g. 204 of a preflight). */
  status?: number;
  /** Further success statuses, e.g. 202 for an escalated grant, answered with the same body (none for 204 and 304). */
  alsoAnswers?: number[];
  /**
   * A cacheable public document: reads `If-None-Match` and answers 304 to its current strong
   * `ETag`; 200 and 304 carry `ETag` and `Cache-Control`.
   */
  conditional?: boolean;
  /**
   * Media type of the success body when it is not `application/json` and the route does not set
   * it with `@Header('content-type', …)`: `text/html`, `text/javascript`, `application/jwt`…
   */
  produces?: string;
  /**
   * The request body of a route that reads it as a stream (`@StreamedRequestBody()`), where no
   * `@Body()` parameter names its class: the JSON body's class and, when the route also takes
   * `application/x-ndjson`, what each line holds.
   */
  body?: { json: Type<unknown>; ndjson?: string };
}

/** Documents a route in the OpenAPI document (paths, bodies and security are derived anyway). */
export const ApiDoc = (options: ApiDocOptions): MethodDecorator => SetMetadata(API_DOC, options);

/** What a success response carries: a class whose class-validator decorators describe its fields. */
export interface ApiResponseOfOptions {
  /** The body is an array of the class. */
  isArray?: boolean;
  /** The body is a page `{data: [class], has_more, next_cursor}`. */
  page?: boolean;
  /**
   * The status this body answers with, when the route answers several with different bodies. A
   * 4xx status documents a refusal whose body is not the plain error envelope (a grant's denial).
   */
  status?: number;
}

/** One `@ApiResponseOf` of a route, as the document generator reads it. */
export type DeclaredResponse = ApiResponseOfOptions & { type: Type<unknown> };

/**
 * Declares the body of a route's success response by the class its view produces, so the
 * OpenAPI document (and the typed client generated from it) describe what is answered.
 */
export const ApiResponseOf =
  (type: Type<unknown>, options: ApiResponseOfOptions = {}): MethodDecorator =>
  (_target, _key, descriptor) => {
    const declared = (Reflect.getMetadata(API_RESPONSE_OF, descriptor.value as object) as DeclaredResponse[] | undefined) ?? [];
    Reflect.defineMetadata(API_RESPONSE_OF, [...declared, { type, ...options }], descriptor.value as object);
    return descriptor;
  };
