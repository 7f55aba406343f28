import type { ApiDocOptions } from './api-doc.decorator';

type Json = Record<string, unknown>;

/** Request headers declared once and referenced by the operations that read them. */
export const COMPONENT_PARAMETERS: Record<string, Json> = {
  IdempotencyKey: {
    name: 'Idempotency-Key',
    in: 'header',
    required: false,
    description:
      'Makes a retry safe. Keys are scoped to the authenticated caller (application, person, attester) and kept 24 h. The same key with the same request (method, path, canonical JSON body) replays the first successful answer (status, body, `Location`/`Content-Type`, and `Idempotent-Replayed: true`) without running it again; with another request it is 422 `idempotency_key_reused`; while the first is still running it is 409 `idempotency_key_in_progress` (`Retry-After`; the claim of a crashed request expires after 30 s, and a retry then runs it only if it had changed nothing). A request that was applied but whose answer was lost when the server stopped is never run again: every retry is 409 `idempotency_key_answer_lost` (no `Retry-After`; read the resource instead). A failed (non-2xx) request frees its key, unless it had already applied its change (then its 4xx answer is replayed, a 5xx is `idempotency_key_answer_lost`). 1-255 visible ASCII characters, else 400 `idempotency_key_invalid`. Ignored for publishable keys.',
    schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7e]+$' },
  },
  DPoP: {
    name: 'DPoP',
    in: 'header',
    required: true,
    description:
      'DPoP proof JWT (RFC 9449) signed with the agent key, bound to this method and URL (and to the agent token by `ath` when one is presented)',
    schema: { type: 'string' },
  },
  IfNoneMatch: {
    name: 'If-None-Match',
    in: 'header',
    required: false,
    description:
      'Entity tags of copies the client holds (RFC 9110 §13.1.2), or `*`: the answer is 304 without a body when one matches the current `ETag`',
    schema: { type: 'string' },
  },
  DelegationGrantId: {
    name: 'X-Delegation-Grant-Id',
    in: 'header',
    required: false,
    description: "A delegation grant id: the caller acts as the grant's delegate in the principal's context",
    schema: { type: 'string' },
  },
};

/** Response headers declared once and referenced by the responses that carry them. */
export const COMPONENT_HEADERS: Record<string, Json> = {
  RetryAfter: { description: 'Seconds to wait before retrying', schema: { type: 'string', pattern: '^[0-9]+$' } },
  IdempotentReplayed: {
    description: '`true` when the answer replays the stored response of an earlier request with the same key',
    schema: { type: 'string', enum: ['true'] },
  },
  Deprecation: { description: 'When this route was deprecated (RFC 9745, `@<epoch seconds>`)', schema: { type: 'string' } },
  Sunset: { description: 'When this route stops answering (RFC 8594, HTTP-date)', schema: { type: 'string' } },
  Link: { description: 'The successor of this route (`rel="successor-version"`)', schema: { type: 'string' } },
  ETag: {
    description: 'Strong entity tag of the current document (quoted base64url SHA-256 of its bytes); changes as soon as the document does',
    schema: { type: 'string' },
  },
  CacheControl: {
    description: 'How long shared and private caches may keep the answer (`public, max-age=<seconds>`)',
    schema: { type: 'string' },
  },
};

export const SECURITY_SCHEMES: Record<string, Json> = {
  apiToken: { type: 'http', scheme: 'bearer', description: 'Opaque API token (server-to-server only)' },
  publishableKey: {
    type: 'apiKey',
    in: 'header',
    name: 'X-Publishable-Key',
    description: 'pk_test_* / pk_live_*; creates consent sessions only',
  },
  accessToken: {
    type: 'http',
    scheme: 'bearer',
    description: "A person's OAuth 2.0 access token from this region's OpenID provider (not DPoP-bound ones)",
  },
  accountToken: {
    type: 'http',
    scheme: 'bearer',
    description: "An organisation account's token acct_…, acting with the role it was issued with on the account's applications",
  },
  counterpartyToken: {
    type: 'http',
    scheme: 'bearer',
    description:
      "Counterparty token ctp_<region>_… of an active trust pairing (/api/v1/trust_pairings): verifies the issuing application's receipts (receipts:verify) or reads its consent status (consent_status:read)",
  },
  attesterToken: {
    type: 'http',
    scheme: 'bearer',
    description: 'Trusted attester token tat_<region>_…, where the route names the permission it needs',
  },
  agentToken: {
    type: 'http',
    scheme: 'DPoP',
    description:
      'DPoP-bound agent token (`Authorization: DPoP ra_agent_…`) presented with a `DPoP` proof header made with the agent key (RFC 9449)',
  },
};

/** Headers of a success response the route's options promise. */
export function successHeaders(doc: ApiDocOptions): Json | undefined {
  const headers: Json = {
    ...(doc.replays ? { 'Idempotent-Replayed': { $ref: '#/components/headers/IdempotentReplayed' } } : {}),
    ...(doc.conditional
      ? { ETag: { $ref: '#/components/headers/ETag' }, 'Cache-Control': { $ref: '#/components/headers/CacheControl' } }
      : {}),
    ...(doc.deprecated
      ? {
          Deprecation: { $ref: '#/components/headers/Deprecation' },
          Sunset: { $ref: '#/components/headers/Sunset' },
          Link: { $ref: '#/components/headers/Link' },
        }
      : {}),
  };
  return Object.keys(headers).length ? headers : undefined;
}

/** A summary for a route that has none: its handler and controller names in words. */
export function summaryOf(handlerName: string, controllerName: string): string {
  const words = (name: string): string => name.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase();
  const action = words(handlerName);
  return `${action.charAt(0).toUpperCase()}${action.slice(1)} (${words(controllerName.replace(/Controller$/, ''))})`;
}

/** The operation id, suffixed with the path when another route already uses it. */
export function uniqueOperationId(used: Set<string>, candidate: string, path: string): string {
  let id = candidate;
  if (used.has(id)) id = `${candidate}_${path.replace(/[{}]/g, '').split('/').filter(Boolean).join('_')}`;
  used.add(id);
  return id;
}

/**
 * Repairs what class-validator-jsonschema emits but OpenAPI tools refuse: a `$ref` to the plain
 * `Object` of a nested untyped field (an open object), and `oneOf` of string formats that every
 * string matches both of (`anyOf` says what is meant).
 */
export function tidySchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(tidySchema);
  if (schema === null || typeof schema !== 'object') return schema;
  const entries = Object.entries(schema as Json);
  if ((schema as Json).$ref === '#/components/schemas/Object') {
    // Keep what a field's own @JSONSchema said of it (a custom validator's field is emitted as such a $ref).
    const { description, examples } = schema as Json;
    return {
      type: 'object',
      additionalProperties: true,
      ...(description !== undefined ? { description } : {}),
      ...(examples !== undefined ? { examples } : {}),
    };
  }
  const tidied: Json = {};
  for (const [key, value] of entries) {
    const formatsOnly =
      key === 'oneOf' &&
      Array.isArray(value) &&
      value.every((branch) => typeof branch === 'object' && branch !== null && 'format' in branch && !('$ref' in branch));
    tidied[formatsOnly ? 'anyOf' : key] = tidySchema(value);
  }
  return tidied;
}
