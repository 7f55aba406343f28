import 'reflect-metadata';
import { RequestMethod, type Type } from '@nestjs/common';
import { HEADERS_METADATA, HTTP_CODE_METADATA, METHOD_METADATA, PATH_METADATA, ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';
import { AUTH_ACCOUNT_ACCESS, AUTH_COUNTERPARTY_SCOPE, AUTH_KINDS, AUTH_PUBLIC, AUTH_SCOPES, type CredentialKind } from '@svc/auth';
import { HTTP_STATUS_BY_KIND, reasonCodesByKind } from '@svc/errors';
// eslint-disable-next-line @typescript-eslint/no-require-imports -- class-transformer exports its metadata storage only by file path
const { defaultMetadataStorage } = require('class-transformer/cjs/storage') as typeof import('class-transformer/types/storage');
import { validationMetadatasToSchemas } from 'class-validator-jsonschema';
import { IDEMPOTENCY_POLICY, idempotencyModeOf, type IdempotencyDeclaration } from '../idempotency/idempotency-policy';
import { API_DOC, API_RESPONSE_OF, type ApiDocOptions, type DeclaredResponse } from './api-doc.decorator';
import {
  COMPONENT_HEADERS,
  COMPONENT_PARAMETERS,
  SECURITY_SCHEMES,
  successHeaders,
  summaryOf,
  tidySchema,
  uniqueOperationId,
} from './openapi-parts';

type Json = Record<string, unknown>;

const HTTP_METHODS: Partial<Record<RequestMethod, string>> = {
  [RequestMethod.GET]: 'get',
  [RequestMethod.POST]: 'post',
  [RequestMethod.PUT]: 'put',
  [RequestMethod.PATCH]: 'patch',
  [RequestMethod.DELETE]: 'delete',
  [RequestMethod.OPTIONS]: 'options',
  [RequestMethod.HEAD]: 'head',
};

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'Malformed JSON (not UTF-8, nested deeper than 32 levels, an object of more than 1,000 members), unknown field, wrong type, `null` for a non-nullable field, or a string holding U+0000 or an unpaired surrogate (`detail.field` names the field)',
  401: 'Missing or invalid credentials',
  403: 'Authenticated but not permitted',
  404: 'Unknown, or not accessible to this caller',
  421: 'Homed in another region (`home_country`, ISO 3166-1 alpha-2; `detail.home_region`); the resource is never returned',
  413: 'Request body over the size limit (`payload_too_large`)',
  415: 'Body sent without `Content-Type: application/json` (`unsupported_media_type`)',
  422: 'A value breaks a rule (`detail.field` names it), or an Idempotency-Key reused with another request (`idempotency_key_reused`)',
  409: 'Conflicts with the current state (a request with the same Idempotency-Key still in flight, a replayed proof, a duplicate)',
  410: 'No longer available (revoked, expired or deleted)',
  429: 'Too many requests; retry after `Retry-After` seconds',
  500: 'Unexpected failure (`internal_error`)',
  503: 'A dependency (database, bus) is unavailable; retry after `Retry-After` seconds',
};

/** Statuses whose answers carry `Retry-After`. */
const RETRY_AFTER_STATUSES = new Set([429, 503]);

/** Every operation taking a body can answer these, whatever else it documents. */
const BODY_ERRORS = [413, 415];

function errorCodes(documented: readonly number[] | undefined, authenticated: boolean, takesBody: boolean): number[] {
  const codes = documented ?? [400, ...(authenticated ? [401, 403] : []), 404, 421, ...(takesBody ? [...BODY_ERRORS, 422] : [])];
  const withClientError = codes.some((code) => code >= 400 && code < 500) ? codes : [...codes, 404];
  return [...new Set([...withClientError, ...(takesBody ? BODY_ERRORS : []), 503])].sort((a, b) => a - b);
}

/** One shared response per error status: the envelope, with the reason codes of that status listed. */
function errorResponses(): Record<string, Json> {
  const codesByStatus = new Map<number, string[]>();
  for (const [code, kind] of reasonCodesByKind()) {
    const status = HTTP_STATUS_BY_KIND[kind];
    codesByStatus.set(status, [...(codesByStatus.get(status) ?? []), code]);
  }
  const responses: Record<string, Json> = {};
  for (const [status, description] of Object.entries(ERROR_DESCRIPTIONS).sort(([a], [b]) => Number(a) - Number(b))) {
    const codes = [...new Set(codesByStatus.get(Number(status)) ?? [])].sort();
    responses[`Error${status}`] = {
      description,
      ...(RETRY_AFTER_STATUSES.has(Number(status)) ? { headers: { 'Retry-After': { $ref: '#/components/headers/RetryAfter' } } } : {}),
      content: {
        'application/json': {
          schema: codes.length
            ? {
                allOf: [
                  { $ref: '#/components/schemas/ErrorEnvelope' },
                  { type: 'object', properties: { reason_code: { type: 'string', enum: codes } } },
                ],
              }
            : { $ref: '#/components/schemas/ErrorEnvelope' },
        },
      },
    };
  }
  return responses;
}

/**
 * The answers of an operation the platform's Idempotency-Key covers: each success may be a replay
 * (`Idempotent-Replayed`), and 409 (in flight) and 422 (key reused) are possible.
 */
function withIdempotentAnswers(responses: Json): Json {
  const out: Json = {};
  for (const [code, response] of Object.entries(responses)) {
    const status = Number(code);
    if (status >= 200 && status < 300 && !('$ref' in (response as Json))) {
      const headers = ((response as Json).headers ?? {}) as Json;
      out[code] = {
        ...(response as Json),
        headers: { ...headers, 'Idempotent-Replayed': { $ref: '#/components/headers/IdempotentReplayed' } },
      };
    } else out[code] = response;
  }
  for (const status of [409, 422]) out[String(status)] ??= { $ref: `#/components/responses/Error${status}` };
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => Number(a) - Number(b)));
}

/** The components of a section that the document refers to. */
function usedOnly(components: Record<string, Json>, section: string, referrers: unknown): Record<string, Json> {
  const text = JSON.stringify(referrers);
  return Object.fromEntries(Object.entries(components).filter(([name]) => text.includes(`"#/components/${section}/${name}"`)));
}

/** The schema of a success body declared with `@ApiResponseOf`. */
function successSchema(declared: DeclaredResponse | undefined, schemas: Record<string, Json>): Json | undefined {
  if (!declared || !schemas[declared.type.name]) return undefined;
  const item = { $ref: `#/components/schemas/${declared.type.name}` };
  if (declared.page) {
    return {
      type: 'object',
      required: ['data', 'has_more', 'next_cursor'],
      properties: { data: { type: 'array', items: item }, has_more: { type: 'boolean' }, next_cursor: { type: ['string', 'null'] } },
    };
  }
  return declared.isArray ? { type: 'array', items: item } : item;
}

/** A JSON media type (`application/json`, `application/jwk-set+json`…): its body has a schema. */
function isJsonMediaType(mediaType: string): boolean {
  return mediaType === 'application/json' || mediaType.endsWith('+json');
}

/** The media type of a route's success body: `@ApiDoc({produces})`, else its `@Header('content-type')`, else JSON. */
function successMediaType(doc: ApiDocOptions, handler: object): string {
  if (doc.produces) return doc.produces;
  const headers = (Reflect.getMetadata(HEADERS_METADATA, handler) as Array<{ name: string; value: string }> | undefined) ?? [];
  const contentType = headers.find((h) => h.name.toLowerCase() === 'content-type')?.value;
  return contentType ? contentType.split(';')[0]!.trim() : 'application/json';
}

/** A webhook the API sends: its event name, what it means and the class or schema of its body. */
export interface DocumentedWebhook {
  event: string;
  summary: string;
  /** The JSON schema of the delivery body, with `$ref`s to `components.schemas` resolved by the builder. */
  body: Json;
  /** Further schemas the body refers to (`#/components/schemas/<name>`), e.g. from protobuf descriptors. */
  schemas?: Record<string, Json>;
  /** Classes (class-validator) the body refers to by name. */
  classes?: readonly Type<unknown>[];
}

function joinPath(...parts: string[]): string {
  const path = `/${parts
    .map((p) => p.replace(/^\/|\/$/g, ''))
    .filter(Boolean)
    .join('/')}`;
  return path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

function asArray(value: string | string[] | undefined): string[] {
  return value === undefined ? [''] : Array.isArray(value) ? value : [value];
}

/**
 * The schema of a query class, or of its nearest ancestor with one: a class adding nothing to its
 * parent (`class EntriesQuery extends PageQuery {}`) has no validation metadata of its own, and its
 * parameters are the parent's.
 */
function inheritedSchema(schemas: Record<string, Json>, type: Type<unknown>): Json | undefined {
  for (
    let current: unknown = type;
    typeof current === 'function' && current !== Function.prototype;
    current = Object.getPrototypeOf(current)
  ) {
    const schema = schemas[(current as { name: string }).name];
    if (schema) return schema;
  }
  return undefined;
}

function security(target: object, handler: object): Json[] {
  const read = <T>(key: string): T | undefined =>
    (Reflect.getMetadata(key, handler) as T | undefined) ?? (Reflect.getMetadata(key, target) as T | undefined);
  if (read<boolean>(AUTH_PUBLIC)) return [];
  const declared = read<CredentialKind[]>(AUTH_KINDS) ?? ['api_token'];
  const kinds: CredentialKind[] = read<object>(AUTH_ACCOUNT_ACCESS)
    ? [...new Set<CredentialKind>([...declared, 'access_token', 'account_token'])]
    : declared;
  const scopes = read<string[]>(AUTH_SCOPES) ?? [];
  return kinds.map((kind) => {
    switch (kind) {
      case 'api_token':
        return { apiToken: scopes };
      case 'publishable_key':
        return { publishableKey: [] };
      case 'attester_token':
        return { attesterToken: [] };
      case 'access_token':
        return { accessToken: [] };
      case 'account_token':
        return { accountToken: [] };
      case 'counterparty_token':
        return { counterpartyToken: [read<string>(AUTH_COUNTERPARTY_SCOPE) ?? ''].filter(Boolean) };
    }
  });
}

interface RouteArg {
  index: number;
  data?: string;
  pipes?: unknown[];
}

/** The schema of a path parameter: its identifier pattern when a pipe checks one. */
function pathParameterSchema(arg: RouteArg): Json {
  const pattern = (arg.pipes ?? []).map((pipe) => (pipe as { pattern?: unknown }).pattern).find((p): p is string => typeof p === 'string');
  return pattern === undefined ? { type: 'string' } : { type: 'string', pattern };
}

/**
 * Builds an OpenAPI 3.1 document from controllers: paths and methods from Nest's route metadata,
 * request bodies and query parameters from the class-validator DTOs (so the document cannot
 * disagree with validation), security from the auth decorators, and the error envelope.
 */
export function buildOpenApiDocument(
  controllers: readonly Type<unknown>[],
  info: { title: string; version: string; description?: string },
  options: { webhooks?: readonly DocumentedWebhook[]; webhookHeaders?: Record<string, Json> } = {},
): Json {
  const schemas = validationMetadatasToSchemas({
    refPointerPrefix: '#/components/schemas/',
    classTransformerMetadataStorage: defaultMetadataStorage,
  }) as Record<string, Json>;
  const paths: Record<string, Record<string, Json>> = {};
  const usedSchemas = new Set<string>();
  const operationIds = new Set<string>();
  // Response bodies may gain fields in a compatible release, so clients must not refuse unknown ones.
  const responseSchemas = new Set<string>();

  for (const controller of controllers) {
    const base = asArray(Reflect.getMetadata(PATH_METADATA, controller) as string | string[] | undefined);
    const prototype = controller.prototype as Record<string, unknown>;
    for (const name of Object.getOwnPropertyNames(prototype)) {
      const handler = prototype[name];
      if (name === 'constructor' || typeof handler !== 'function') continue;
      const method = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
      const routePaths = Reflect.getMetadata(PATH_METADATA, handler) as string | string[] | undefined;
      if (method === undefined || routePaths === undefined) continue;
      const verb = HTTP_METHODS[method];
      if (!verb) continue;
      const doc = (Reflect.getMetadata(API_DOC, handler) as ApiDocOptions | undefined) ?? {};
      const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, name) ?? {}) as Record<string, RouteArg>;
      const paramTypes = (Reflect.getMetadata('design:paramtypes', prototype, name) ?? []) as Array<Type<unknown> | undefined>;
      const parameters: Json[] = [];
      let requestBody: Json | undefined;
      for (const [key, arg] of Object.entries(args)) {
        const kind = Number(key.split(':')[0]);
        const type = paramTypes[arg.index];
        if (kind === RouteParamtypes.PARAM && arg.data) {
          parameters.push({ name: arg.data, in: 'path', required: true, schema: pathParameterSchema(arg) });
        } else if (kind === RouteParamtypes.QUERY && type && inheritedSchema(schemas, type)) {
          const schema = inheritedSchema(schemas, type)!;
          const required = new Set((schema.required as string[] | undefined) ?? []);
          for (const [property, propertySchema] of Object.entries((schema.properties ?? {}) as Record<string, Json>)) {
            parameters.push({ name: property, in: 'query', required: required.has(property), schema: tidySchema(propertySchema) });
          }
        } else if (kind === RouteParamtypes.BODY && type && schemas[type.name]) {
          usedSchemas.add(type.name);
          requestBody = { required: true, content: { 'application/json': { schema: { $ref: `#/components/schemas/${type.name}` } } } };
        }
      }
      if (doc.body && schemas[doc.body.json.name]) {
        usedSchemas.add(doc.body.json.name);
        const json = { schema: { $ref: `#/components/schemas/${doc.body.json.name}` } };
        const ndjson = doc.body.ndjson ? { 'application/x-ndjson': { schema: { type: 'string', description: doc.body.ndjson } } } : {};
        requestBody = { required: true, content: { 'application/json': json, ...ndjson } };
      }
      const sec = doc.agentToken ? [{ agentToken: [] }] : security(controller, handler);
      for (const header of doc.headers ?? [])
        parameters.push({ $ref: `#/components/parameters/${header === 'DPoP' ? 'DPoP' : 'IdempotencyKey'}` });
      if (doc.conditional) parameters.push({ $ref: '#/components/parameters/IfNoneMatch' });
      if (sec.some((requirement) => 'apiToken' in requirement)) parameters.push({ $ref: '#/components/parameters/DelegationGrantId' });
      const fixedStatus = Reflect.getMetadata(HTTP_CODE_METADATA, handler) as number | undefined;
      const status = fixedStatus ?? doc.status ?? (verb === 'post' ? 201 : 200);
      const allDeclared = (Reflect.getMetadata(API_RESPONSE_OF, handler) as DeclaredResponse[] | undefined) ?? [];
      // Bodies of 4xx statuses replace the envelope of that status; the rest are success bodies.
      const declared = allDeclared.filter((d) => d.status === undefined || d.status < 400);
      const refusals = allDeclared.filter((d) => d.status !== undefined && d.status >= 400);
      for (const { type } of allDeclared) {
        usedSchemas.add(type.name);
        responseSchemas.add(type.name);
      }
      const headers = successHeaders(doc);
      const responses: Json = {};
      const declaredStatuses = declared.flatMap((d) => (d.status === undefined ? [] : [d.status]));
      // A handler that sets its status itself answers the statuses its declared bodies name, not Nest's default.
      const ownStatuses = fixedStatus === undefined && declared.length > 0 && declaredStatuses.length === declared.length;
      const successStatuses = [...new Set([...(ownStatuses ? [] : [status]), ...declaredStatuses, ...(doc.alsoAnswers ?? [])])].sort(
        (a, b) => a - b,
      );
      const mediaType = successMediaType(doc, handler);
      for (const code of successStatuses) {
        // Several bodies for one status (e.g. a page, or one item when a query names it) are alternatives.
        const forStatus = declared.filter((d) => d.status === code);
        const candidates = (forStatus.length ? forStatus : declared.filter((d) => d.status === undefined))
          .map((d) => successSchema(d, schemas))
          .filter((x): x is Json => x !== undefined);
        const bodySchema = candidates.length > 1 ? { anyOf: candidates } : candidates[0];
        // A body that is not JSON (a page, a script, a metrics text, a JWT) is a string of its media type.
        const schema = isJsonMediaType(mediaType) ? bodySchema : { type: 'string' };
        responses[String(code)] = {
          description: doc.response ?? 'Success',
          ...(headers ? { headers } : {}),
          ...(schema && code !== 204 && code !== 304 ? { content: { [mediaType]: { schema } } } : {}),
        };
      }
      for (const code of errorCodes(doc.errors, sec.length > 0, requestBody !== undefined)) {
        // Several bodies for one refusal status (e.g. a cascade denial or a policy engine's) are alternatives.
        const refusalCandidates = refusals
          .filter((d) => d.status === code)
          .map((d) => successSchema(d, schemas))
          .filter((x): x is Json => x !== undefined);
        const refusalSchema = refusalCandidates.length > 1 ? { anyOf: refusalCandidates } : refusalCandidates[0];
        responses[String(code)] = refusalSchema
          ? {
              description: ERROR_DESCRIPTIONS[code] ?? 'Refused',
              ...(RETRY_AFTER_STATUSES.has(code) ? { headers: { 'Retry-After': { $ref: '#/components/headers/RetryAfter' } } } : {}),
              content: { 'application/json': { schema: refusalSchema } },
            }
          : ERROR_DESCRIPTIONS[code]
            ? { $ref: `#/components/responses/Error${code}` }
            : { description: 'Error', content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } } };
      }
      const isPublic =
        ((Reflect.getMetadata(AUTH_PUBLIC, handler) as boolean | undefined) ??
          (Reflect.getMetadata(AUTH_PUBLIC, controller) as boolean | undefined)) === true;
      const declaredIdempotency =
        (Reflect.getMetadata(IDEMPOTENCY_POLICY, handler) as IdempotencyDeclaration | undefined) ??
        (Reflect.getMetadata(IDEMPOTENCY_POLICY, controller) as IdempotencyDeclaration | undefined);
      for (const routePath of asArray(routePaths)) {
        for (const basePath of base) {
          const path = joinPath(basePath, routePath);
          // The platform's Idempotency-Key (the interceptor's own rule): the header, the replay
          // marker on every success, 409 while in flight and 422 for a reused key.
          const idempotent =
            idempotencyModeOf(verb, path, isPublic, declaredIdempotency) === 'platform' && !(doc.headers ?? []).includes('Idempotency-Key');
          const idempotencyParameters = idempotent ? [{ $ref: '#/components/parameters/IdempotencyKey' }] : [];
          const operationResponses = idempotent ? withIdempotentAnswers(responses) : responses;
          const declaredPathNames = new Set(parameters.filter((p) => p.in === 'path').map((p) => p.name));
          const templateParameters = [...path.matchAll(/\{([^}]+)\}/g)]
            .map((m) => m[1]!)
            .filter((n) => !declaredPathNames.has(n))
            .map((n) => ({ name: n, in: 'path', required: true, schema: { type: 'string' } }));
          const operationParameters = [...parameters, ...idempotencyParameters, ...templateParameters];
          paths[path] ??= {};
          paths[path][verb] = {
            operationId: uniqueOperationId(operationIds, `${controller.name.replace(/Controller$/, '')}_${name}`, path),
            summary: doc.summary ?? summaryOf(name, controller.name),
            ...(doc.description ? { description: doc.description } : {}),
            ...(doc.deprecated ? { deprecated: true } : {}),
            tags: [doc.tag ?? controller.name.replace(/Controller$/, '')],
            ...(operationParameters.length ? { parameters: operationParameters } : {}),
            ...(requestBody ? { requestBody } : {}),
            security: sec,
            responses: operationResponses,
          };
        }
      }
    }
  }

  // Webhooks: each event's delivery body, with the signature headers every delivery carries.
  const webhooks: Record<string, Json> = {};
  const webhookSchemas: Record<string, Json> = {};
  for (const hook of [...(options.webhooks ?? [])].sort((a, b) => a.event.localeCompare(b.event))) {
    for (const type of hook.classes ?? []) {
      usedSchemas.add(type.name);
      responseSchemas.add(type.name);
    }
    Object.assign(webhookSchemas, hook.schemas ?? {});
    webhooks[hook.event] = {
      post: {
        operationId: `webhook_${hook.event.replace(/[^A-Za-z0-9]+/g, '_')}`,
        summary: hook.summary,
        tags: ['Webhooks'],
        // Deliveries are authenticated by their signature headers, not by a credential scheme.
        security: [],
        ...(options.webhookHeaders
          ? { parameters: Object.keys(options.webhookHeaders).map((name) => ({ $ref: `#/components/parameters/${name}` })) }
          : {}),
        requestBody: { required: true, content: { 'application/json': { schema: hook.body } } },
        responses: {
          '200': { description: 'Any 2xx acknowledges the delivery; anything else (or no answer within 15 s) is retried on the schedule' },
          '410': { description: 'The endpoint is gone: the subscription is disabled' },
        },
      },
    };
  }

  // Keep only the schemas reachable from request and response bodies (and their nested references).
  const reachableFrom = (roots: Iterable<string>): Set<string> => {
    const reachable = new Set<string>();
    const visit = (name: string): void => {
      if (reachable.has(name) || !schemas[name]) return;
      reachable.add(name);
      for (const match of JSON.stringify(schemas[name]).matchAll(/#\/components\/schemas\/([A-Za-z0-9_]+)/g)) visit(match[1]!);
    };
    for (const root of roots) visit(root);
    return reachable;
  };
  const reachable = reachableFrom(usedSchemas);
  const inRequests = reachableFrom([...usedSchemas].filter((name) => !responseSchemas.has(name)));
  const componentSchemas: Record<string, Json> = {
    ErrorEnvelope: {
      type: 'object',
      required: ['message'],
      properties: {
        message: { type: 'string' },
        reason_code: { type: 'string', description: 'Stable code from the closed list of the endpoint' },
        detail: { type: 'object', additionalProperties: true },
      },
    },
  };
  for (const name of [...reachable].sort())
    componentSchemas[name] = tidySchema({ ...schemas[name], additionalProperties: !inRequests.has(name) }) as Json;
  for (const name of Object.keys(webhookSchemas).sort()) componentSchemas[name] ??= webhookSchemas[name]!;

  const sortedPaths: Record<string, Record<string, Json>> = {};
  for (const path of Object.keys(paths).sort()) sortedPaths[path] = paths[path]!;
  return {
    openapi: '3.1.0',
    info: { license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' }, ...info },
    servers: [{ url: '{base_url}', variables: { base_url: { default: 'http://127.0.0.1:8081' } } }],
    paths: sortedPaths,
    ...(Object.keys(webhooks).length ? { webhooks } : {}),
    components: {
      schemas: componentSchemas,
      responses: usedOnly(errorResponses(), 'responses', sortedPaths),
      parameters: { ...COMPONENT_PARAMETERS, ...(options.webhookHeaders ?? {}) },
      headers: usedOnly(COMPONENT_HEADERS, 'headers', { sortedPaths, errors: errorResponses() }),
      securitySchemes: SECURITY_SCHEMES,
    },
  };
}
