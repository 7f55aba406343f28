import 'reflect-metadata';
import { SetMetadata } from '@nestjs/common';

export const IDEMPOTENCY_POLICY = 'svc:idempotency-policy';

/** How a route treats the `Idempotency-Key` header. */
export type IdempotencyMode =
  /** The platform's interceptor claims the key, stores the answer and replays it. */
  | 'platform'
  /** The route keeps the same semantics itself, inside its own transaction (a hot path). */
  | 'own'
  /** The header is ignored: the answer must not be stored or replayed. */
  | 'none';

/** A route's declared exception to the platform default, with the reason it is one. */
export interface IdempotencyDeclaration {
  mode: 'own' | 'exempt';
  reason: string;
}

/**
 * The route implements `Idempotency-Key` itself (same key and body replay with
 * `Idempotent-Replayed: true`, another body 422, in flight 409), e.g. inside the group commit that
 * writes its outcome, so the platform interceptor leaves it alone. The route documents the header
 * with `@ApiDoc({ headers: ['Idempotency-Key'], replays: true })`.
 */
export const OwnIdempotency = (reason: string): MethodDecorator & ClassDecorator =>
  SetMetadata(IDEMPOTENCY_POLICY, { mode: 'own', reason } satisfies IdempotencyDeclaration);

/**
 * The route's answer must never be stored or replayed (a question whose answer must be current, a
 * one-time secret read, a protocol endpoint with its own replay rules): the interceptor ignores
 * `Idempotency-Key` there and the document does not offer it. `reason` says why.
 */
export const IdempotencyExempt = (reason: string): MethodDecorator & ClassDecorator =>
  SetMetadata(IDEMPOTENCY_POLICY, { mode: 'exempt', reason } satisfies IdempotencyDeclaration);

/** Methods that change something, the only ones whose answers are stored. */
const CHANGING_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** The authenticated API: the platform default applies under this prefix only. */
export const IDEMPOTENT_PATH_PREFIX = '/api/v1/';

/**
 * The one rule deciding whether a route honours `Idempotency-Key` through the platform store,
 * shared by the interceptor (at run time) and the OpenAPI builder (in the document), so the two
 * cannot disagree:
 *
 * - only changing methods (POST, PUT, PATCH, DELETE);
 * - only under `/api/v1/` — the OpenID provider under `/oauth` (its own code, token and PAR replay
 *   rules), the hosted pages' form posts (`/decisions`, `/people`, `/authorities`, a browser's
 *   session cookie, no caller to scope keys by) and `/capture/v1` (publishable key) are outside;
 * - only routes that authenticate a caller through the guard: a `@Public` route (webhook intakes
 *   authenticated by a path secret or signature, hosted-page transitions authorised by a session
 *   token in the path, attestation intakes keyed by their own `attestation_id`) has no caller to
 *   scope a key by, and a key must never be global;
 * - a route's own `@OwnIdempotency` / `@IdempotencyExempt` declaration wins.
 *
 * Any other changing route, including one added later, is covered by default.
 */
export function idempotencyModeOf(
  method: string,
  path: string,
  isPublic: boolean,
  declared: IdempotencyDeclaration | undefined,
): IdempotencyMode {
  if (!CHANGING_METHODS.has(method.toUpperCase())) return 'none';
  if (declared) return declared.mode === 'own' ? 'own' : 'none';
  if (isPublic || !path.startsWith(IDEMPOTENT_PATH_PREFIX)) return 'none';
  return 'platform';
}
