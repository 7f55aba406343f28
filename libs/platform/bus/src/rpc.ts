import { create, fromBinary, toBinary, type MessageInitShape } from '@bufbuild/protobuf';
import { RPC_METHODS, rpcSubject, type RpcError, type RpcMethod } from '@svc/contracts';
import { ROOT_CONTEXT } from '@opentelemetry/api';
import { DomainError, type ErrorKind } from '@svc/errors';
import { SpanKind, contextWithRemoteParent, inSpan } from '@svc/telemetry';
import type { Subscription } from 'nats';
import type { BusConnection } from './bus-connection';
import { messagingAttributes, traceHeaders, traceOfHeaders } from './trace-headers';

type Method = (typeof RPC_METHODS)[RpcMethod];
type RequestOf<M extends RpcMethod> = MessageInitShape<(typeof RPC_METHODS)[M]['request']>;
type ReplyInit<M extends RpcMethod> = MessageInitShape<(typeof RPC_METHODS)[M]['reply']>;
type RequestMessage<M extends RpcMethod> = ReturnType<typeof create<(typeof RPC_METHODS)[M]['request']>>;
type ReplyMessage<M extends RpcMethod> = ReturnType<typeof create<(typeof RPC_METHODS)[M]['reply']>>;

const KNOWN_KINDS: ReadonlySet<string> = new Set<ErrorKind>([
  'invalid', 'unauthenticated', 'forbidden', 'not_found', 'conflict', 'gone', 'misdirected',
  'unprocessable', 'rate_limited', 'unavailable', 'internal',
]);

type Handler<M extends RpcMethod> = (request: RequestMessage<M>) => Promise<ReplyInit<M>>;

/**
 * The request/reply handlers registered in this process, shared by its {@link RpcServer} and
 * {@link RpcClient}: a method whose owner runs in the same process is called directly, so it keeps
 * answering while the bus is down.
 */
export class LocalRpcHandlers {
  private readonly handlers = new Map<RpcMethod, Handler<RpcMethod>>();

  register<M extends RpcMethod>(method: M, handler: Handler<M>): void {
    this.handlers.set(method, handler as unknown as Handler<RpcMethod>);
  }

  get<M extends RpcMethod>(method: M): Handler<M> | undefined {
    return this.handlers.get(method) as unknown as Handler<M> | undefined;
  }

  clear(): void {
    this.handlers.clear();
  }
}

/**
 * Serves request/reply methods over core NATS with a queue group per method (instances share
 * load). Each request is handled in a server span, a child of the caller's span named by the
 * request's `traceparent` header.
 */
export class RpcServer {
  private readonly subscriptions: Subscription[] = [];

  /** @param local where handlers are also registered for in-process callers (see {@link LocalRpcHandlers}). */
  constructor(
    private readonly bus: BusConnection,
    private readonly local?: LocalRpcHandlers,
  ) {}

  handle<M extends RpcMethod>(method: M, handler: Handler<M>): void {
    this.local?.register(method, handler);
    const spec: Method = RPC_METHODS[method];
    const subject = rpcSubject(this.bus.prefix, this.bus.region, method);
    const subscription = this.bus.nc.subscribe(subject, { queue: `rpc.${method}` });
    this.subscriptions.push(subscription);
    void (async () => {
      for await (const msg of subscription) {
        let reply: Uint8Array;
        try {
          const request = fromBinary(spec.request, msg.data) as RequestMessage<M>;
          const init = await inSpan(`${method} handle`, { kind: SpanKind.SERVER, parent: contextWithRemoteParent(traceOfHeaders(msg.headers), ROOT_CONTEXT), attributes: rpcAttributes(method, subject) }, () =>
            handler(request),
          );
          reply = toBinary(spec.reply, create(spec.reply, init as never));
        } catch (error) {
          const rpcError: Partial<RpcError> =
            error instanceof DomainError
              ? { kind: error.kind, code: error.code, message: error.message, detailJson: error.detail ? JSON.stringify(error.detail) : '' }
              : { kind: 'internal', code: 'internal_error', message: 'Internal error', detailJson: '' };
          reply = toBinary(spec.reply, create(spec.reply, { error: rpcError } as never));
        }
        msg.respond(reply);
      }
    })();
  }

  close(): void {
    this.local?.clear();
    for (const subscription of this.subscriptions) subscription.unsubscribe();
  }
}

/**
 * Calls request/reply methods; a reply carrying an error is rethrown as the same DomainError.
 * Local first: a method whose handler is registered in this process ({@link LocalRpcHandlers}) is
 * called directly, with the same encoding round trip and the same errors as over NATS. Either way
 * the call is a client span whose context the handler continues (over NATS, in the request's
 * `traceparent` header).
 */
export class RpcClient {
  constructor(
    private readonly bus: BusConnection,
    private readonly local?: LocalRpcHandlers,
  ) {}

  /** Region whose services this client calls. */
  get region(): string {
    return this.bus.region;
  }

  async call<M extends RpcMethod>(method: M, request: RequestOf<M>, timeoutMs = 3_000): Promise<ReplyMessage<M>> {
    const subject = rpcSubject(this.bus.prefix, this.bus.region, method);
    const handler = this.local?.get(method);
    return inSpan(`${method} call`, { kind: SpanKind.CLIENT, attributes: { ...rpcAttributes(method, subject), 'rpc.local': handler !== undefined } }, () =>
      handler ? this.callLocal(method, handler, request) : this.callRemote(method, subject, request, timeoutMs),
    );
  }

  private async callRemote<M extends RpcMethod>(method: M, subject: string, request: RequestOf<M>, timeoutMs: number): Promise<ReplyMessage<M>> {
    const spec: Method = RPC_METHODS[method];
    let data: Uint8Array;
    try {
      const msg = await this.bus.nc.request(subject, toBinary(spec.request, create(spec.request, request as never)), { timeout: timeoutMs, headers: traceHeaders() });
      data = msg.data;
    } catch (error) {
      throw new DomainError('unavailable', 'service_unavailable', `Upstream ${method} did not answer`, {
        cause: error instanceof Error ? error.message : String(error),
      });
    }
    return replyOrThrow<M>(fromBinary(spec.reply, data) as ReplyMessage<M>);
  }

  private async callLocal<M extends RpcMethod>(method: M, handler: Handler<M>, request: RequestOf<M>): Promise<ReplyMessage<M>> {
    const spec: Method = RPC_METHODS[method];
    // The same encoding round trip as over the bus: the handler and the caller share no objects,
    // and a message the wire could not carry fails here too.
    const decoded = fromBinary(spec.request, toBinary(spec.request, create(spec.request, request as never))) as RequestMessage<M>;
    let init: ReplyInit<M>;
    try {
      init = await inSpan(`${method} handle`, { kind: SpanKind.SERVER, attributes: { 'rpc.system': 'nats', 'rpc.method': method, 'rpc.local': true } }, () => handler(decoded));
    } catch (error) {
      if (error instanceof DomainError) throw error;
      // What a remote caller would get; the original stays attached for the caller's error log.
      throw Object.assign(new DomainError('internal', 'internal_error', 'Internal error'), { cause: error });
    }
    return replyOrThrow<M>(fromBinary(spec.reply, toBinary(spec.reply, create(spec.reply, init as never))) as ReplyMessage<M>);
  }
}

function rpcAttributes(method: string, subject: string): Record<string, string> {
  return { ...messagingAttributes(subject), 'rpc.system': 'nats', 'rpc.method': method };
}

function replyOrThrow<M extends RpcMethod>(reply: ReplyMessage<M>): ReplyMessage<M> {
  const rpcError = (reply as { error?: RpcError }).error;
  if (rpcError && rpcError.code) {
    const kind = (KNOWN_KINDS.has(rpcError.kind) ? rpcError.kind : 'internal') as ErrorKind;
    const detail = rpcError.detailJson ? (JSON.parse(rpcError.detailJson) as Record<string, unknown>) : undefined;
    throw new DomainError(kind, rpcError.code, rpcError.message, detail);
  }
  return reply;
}
