import { type CallHandler, type ExecutionContext, Injectable, type NestInterceptor } from '@nestjs/common';
import { RESPONSE_PASSTHROUGH_METADATA, ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';
import { Reflector } from '@nestjs/core';
import { AUTH_PUBLIC, PerRoute, type Principal } from '@svc/auth';
import { faultPoint } from '@svc/config';
import { canonicalJson, sha256Hex } from '@svc/crypto';
import {
  IDEMPOTENT_REPLAYED_HEADER,
  IdempotencyStore,
  parseIdempotencyKey,
  runUnderClaim,
  type RunningClaim,
  type StoredAnswer,
} from '@svc/persistence';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { type Observable, of } from 'rxjs';
import { isStreamedBody } from '../body/body-parsers';
import { IDEMPOTENCY_POLICY, idempotencyModeOf, type IdempotencyDeclaration } from './idempotency-policy';

/** Response headers stored with an answer and replayed with it (never cookies). */
const REPLAYED_HEADERS = ['content-type', 'location', 'cache-control', 'deprecation', 'sunset', 'link'] as const;

/** What the interceptor leaves on a request whose key it claimed, for the `onSend` hook. */
const PENDING = Symbol('svc.idempotency.pending');
/** What it leaves on a request whose body is read as a stream: the claim, made once the body is read. */
const DEFERRED = Symbol('svc.idempotency.deferred');

interface DeferredClaim {
  store: IdempotencyStore;
  caller: string;
  key: string;
}

interface PendingClaim {
  store: IdempotencyStore;
  running: RunningClaim;
}

type IdempotentRequest = FastifyRequest & { principal?: Principal; [PENDING]?: PendingClaim; [DEFERRED]?: DeferredClaim };

/**
 * The scope of a caller's keys: the application of an API token, the person (and, acting for
 * them, the delegate) at the application of an access token, the attester of an attester token.
 * Never global, so two callers' keys never meet. A publishable key is public (any page can send
 * it), so a replay there could hand one browser's answer to another: no scope, the header is
 * ignored for it.
 */
export function idempotencyCallerOf(principal: Principal | undefined): string | undefined {
  if (!principal) return undefined;
  switch (principal.kind) {
    case 'api_token':
      return `app:${principal.applicationId}`;
    case 'access_token':
      return `person:${principal.applicationId}:${principal.delegation?.delegateId ?? principal.personId ?? ''}:${principal.delegation?.principalId ?? ''}`;
    case 'account_token':
      return `account:${principal.account?.id ?? ''}:${principal.credentialId}:${principal.applicationId}`;
    case 'attester_token':
      return `attester:${principal.applicationId}:${principal.credentialId}`;
    case 'counterparty_token':
      return `counterparty:${principal.counterpartyApplicationId ?? ''}:${principal.credentialId}`;
    case 'publishable_key':
      return undefined;
  }
}

/**
 * The canonical digest of a request: method, path with query, and the body as RFC 8785 canonical
 * JSON (so key order and whitespace do not matter), or the SHA-256 of raw bytes.
 */
export function requestFingerprint(method: string, url: string, body: unknown): string {
  const content = Buffer.isBuffer(body) ? { raw_sha256: sha256Hex(body) } : typeof body === 'string' ? { text: body } : (body ?? null);
  return sha256Hex(canonicalJson({ method: method.toUpperCase(), url, body: content }));
}

/**
 * `Idempotency-Key` for every changing route of the authenticated API (see `idempotencyModeOf`):
 * runs after the auth guard (the caller is known) and before pipes and the handler. A request
 * without the header passes untouched. With it: the key is checked (400 naming the header), then
 * claimed in the platform store; a repeated request gets the stored answer with
 * `Idempotent-Replayed: true` and the handler does not run; a different request with the key 422,
 * one still in flight 409. The handler runs under the claim ({@link runUnderClaim}), so its first
 * committing transaction marks the claim applied (the store's recovery point). The answer of a
 * request that ran is stored by {@link settleIdempotentAnswer} (the `onSend` hook) before it
 * leaves, so a retry after the answer always finds it; an answer other than 2xx frees the key
 * instead (the request may be corrected and retried), unless the request had committed.
 */
@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  /** Each route's declarations: whether it is public and its idempotency policy (read once per route). */
  private readonly declarations = new PerRoute((targets) => ({
    isPublic: this.reflector.getAllAndOverride<boolean | undefined>(AUTH_PUBLIC, targets) ?? false,
    policy: this.reflector.getAllAndOverride<IdempotencyDeclaration | undefined>(IDEMPOTENCY_POLICY, targets),
  }));
  /** A handler with `@Res()` (not passthrough) sends its own answer; Nest sends nothing after it. */
  private readonly sendsItself = new PerRoute(([handler, controller]) => {
    const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, handler.name) ?? {}) as Record<string, unknown>;
    const usesResponse = Object.keys(args).some((key) =>
      [RouteParamtypes.RESPONSE, RouteParamtypes.NEXT].includes(Number(key.split(':')[0])),
    );
    return usesResponse && Reflect.getMetadata(RESPONSE_PASSTHROUGH_METADATA, controller, handler.name) !== true;
  });

  constructor(
    private readonly reflector: Reflector,
    private readonly store: IdempotencyStore,
  ) {}

  async intercept(context: ExecutionContext, next: CallHandler): Promise<Observable<unknown>> {
    if (context.getType() !== 'http') return next.handle();
    const request = context.switchToHttp().getRequest<IdempotentRequest>();
    const header = request.headers['idempotency-key'];
    if (header === undefined) return next.handle();
    const { isPublic, policy } = this.declarations.of(context);
    const mode = idempotencyModeOf(request.method, request.routeOptions.url ?? request.url, isPublic, policy);
    if (mode !== 'platform') return next.handle();
    const caller = idempotencyCallerOf(request.principal);
    if (caller === undefined) return next.handle();
    const key = parseIdempotencyKey(header)!;
    // A streamed body's fingerprint is known only once it is read: its route claims then.
    if (isStreamedBody(request.body)) {
      request[DEFERRED] = { store: this.store, caller, key };
      return next.handle();
    }
    const outcome = await this.store.claim(caller, key, requestFingerprint(request.method, request.url, request.body));
    if (outcome.state === 'new') {
      const running = this.store.running(outcome.claim);
      request[PENDING] = { store: this.store, running };
      faultPoint('idempotency.after-claim');
      // `handle()` binds the handler to the async context it is called in: the handler, and every
      // transaction it runs, sees the claim.
      return runUnderClaim(running, () => next.handle());
    }
    const reply = context.switchToHttp().getResponse<FastifyReply>();
    void reply.status(outcome.answer.status).headers({ ...outcome.answer.headers, [IDEMPOTENT_REPLAYED_HEADER]: 'true' });
    if (this.sendsItself.of(context)) {
      void reply.send(outcome.answer.body);
      return of(undefined);
    }
    // Nest sends what the chain emits, with the status and headers set above.
    return of(outcome.answer.body);
  }
}

/** What a route reading its body as a stream does once the body is read: send a stored answer again, or go on under the claim. */
export type StreamedBodyClaim = { replay: StoredAnswer } | { replay?: undefined; run<T>(work: () => Promise<T>): Promise<T> };

/**
 * The `Idempotency-Key` claim of a request whose body is read as a stream (`STREAMED_BODY_ROUTE`),
 * made by its route once the body is read, with the SHA-256 of its bytes (the fingerprint of a
 * body read whole from the same bytes): a repeat gets the stored answer to send with
 * `Idempotent-Replayed: true`, another body with the key 422, one in flight 409. Otherwise the
 * route's work runs under the claim and its answer is stored as any other. Without the header
 * (or on a route the platform does not cover) the work simply runs.
 */
export async function claimStreamedBody(request: FastifyRequest, bodySha256: string): Promise<StreamedBodyClaim> {
  const deferred = (request as IdempotentRequest)[DEFERRED];
  if (!deferred) return { run: (work) => work() };
  delete (request as IdempotentRequest)[DEFERRED];
  // The same fingerprint as the body read whole: requestFingerprint names a Buffer body by its SHA-256 this way.
  const fingerprint = requestFingerprint(request.method, request.url, { raw_sha256: bodySha256 });
  const outcome = await deferred.store.claim(deferred.caller, deferred.key, fingerprint);
  if (outcome.state !== 'new') return { replay: outcome.answer };
  const running = deferred.store.running(outcome.claim);
  (request as IdempotentRequest)[PENDING] = { store: deferred.store, running };
  return { run: (work) => runUnderClaim(running, work) };
}

/** Whether the interceptor claimed an Idempotency-Key for this request: only then has {@link settleIdempotentAnswer} work to do. */
export function hasPendingIdempotentAnswer(request: FastifyRequest): boolean {
  return (request as IdempotentRequest)[PENDING] !== undefined;
}

/**
 * `onSend` hook of every HTTP app: stores the answer of a request whose key the interceptor
 * claimed, before the answer leaves (a 2xx with a body that is bytes or text), or frees the key
 * (any other status, or a streamed body that cannot be replayed; a request that committed keeps
 * its key, see `IdempotencyStore.release`). A failure to store is logged by the caller and leaves
 * the claim to its lock; a retry after it runs again only if the request had committed nothing,
 * and is otherwise refused with 409 `idempotency_key_answer_lost`.
 */
export async function settleIdempotentAnswer(request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<void> {
  const pending = (request as IdempotentRequest)[PENDING];
  if (!pending) return;
  delete (request as IdempotentRequest)[PENDING];
  // What the request leaves running in its context no longer counts as the request.
  pending.running.settled = true;
  const status = reply.statusCode;
  const body =
    payload === undefined || payload === null
      ? Buffer.alloc(0)
      : typeof payload === 'string'
        ? Buffer.from(payload, 'utf8')
        : Buffer.isBuffer(payload)
          ? payload
          : undefined;
  const headers: Record<string, string> = {};
  for (const name of REPLAYED_HEADERS) {
    const value = reply.getHeader(name);
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : String(value);
  }
  const answer: StoredAnswer | undefined = body === undefined ? undefined : { status, headers, body };
  faultPoint('idempotency.after-commit');
  if (status < 200 || status >= 300 || answer === undefined) {
    await pending.store.release(pending.running.claim, answer);
    return;
  }
  await pending.store.complete(pending.running.claim, answer);
}
