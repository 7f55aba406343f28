import {
  Catch,
  Module,
  UseFilters,
  applyDecorators,
  type ArgumentsHost,
  type Provider,
  type RpcExceptionFilter,
  type Type,
} from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import {
  ClientNats,
  MessagePattern,
  NatsContext,
  ServerNats,
  type MicroserviceOptions,
  type PacketId,
  type ReadPacket,
  type WritePacket,
} from '@nestjs/microservices';
import { create, fromBinary, toBinary, type MessageInitShape } from '@bufbuild/protobuf';
import { ROOT_CONTEXT } from '@opentelemetry/api';
import { RPC_METHODS, rpcSubject, type RpcError, type RpcMethod } from '@svc/contracts';
import { DomainError, isDependencyUnavailable, type ErrorKind } from '@svc/errors';
import { SpanKind, contextWithRemoteParent, inSpan } from '@svc/telemetry';
import type { Msg, MsgHdrs, Subscription } from 'nats';
import { isObservable, lastValueFrom, throwError, timeout, type Observable } from 'rxjs';
import type { BusConnection } from './bus-connection';
import { messagingAttributes, traceHeaders, traceOfHeaders } from './trace-headers';

type Spec<M extends RpcMethod> = (typeof RPC_METHODS)[M];
/** What a caller passes for method `M`: the init shape of its protobuf request. */
export type RpcRequestInit<M extends RpcMethod> = MessageInitShape<Spec<M>['request']>;
/** What a `@RpcHandler(M)` method receives: the decoded protobuf request. */
export type RpcRequest<M extends RpcMethod> = ReturnType<typeof create<Spec<M>['request']>>;
/** What a `@RpcHandler(M)` method returns: the init shape of its protobuf reply. */
export type RpcReplyInit<M extends RpcMethod> = MessageInitShape<Spec<M>['reply']>;
/** What a caller gets back: the decoded protobuf reply (never one carrying an error: that is thrown). */
export type RpcReply<M extends RpcMethod> = ReturnType<typeof create<Spec<M>['reply']>>;

const KNOWN_KINDS: ReadonlySet<string> = new Set<ErrorKind>([
  'invalid',
  'unauthenticated',
  'forbidden',
  'not_found',
  'conflict',
  'gone',
  'misdirected',
  'unprocessable',
  'rate_limited',
  'unavailable',
  'internal',
]);

/** Default time a remote call waits for its reply, ms. */
export const RPC_TIMEOUT_MS = 3_000;

function isRpcMethod(pattern: unknown): pattern is RpcMethod {
  return typeof pattern === 'string' && Object.hasOwn(RPC_METHODS, pattern);
}

function rpcAttributes(method: string, subject: string): Record<string, string> {
  return { ...messagingAttributes(subject), 'rpc.system': 'nats', 'rpc.method': method };
}

/**
 * Lets a handler's error reach the transport as it was thrown (Nest's default filter would turn
 * every non-`RpcException` into a generic object): the transport maps a {@link DomainError} to its
 * kind and code, anything else to `internal`.
 */
@Catch()
export class RpcErrorPassthrough implements RpcExceptionFilter<unknown> {
  catch(exception: unknown, _host: ArgumentsHost): Observable<never> {
    return throwError(() => exception);
  }
}

type TypedHandler<M extends RpcMethod> = (request: RpcRequest<M>) => Promise<RpcReplyInit<M>>;

/**
 * Marks a controller method as the handler of request/reply method `M` (a typed
 * `@MessagePattern`): it receives the decoded protobuf request and returns the reply's fields; a
 * thrown {@link DomainError} reaches the caller with its kind, code, message and detail.
 */
export function RpcHandler<M extends RpcMethod>(method: M) {
  return <H extends TypedHandler<M>>(target: object, key: string | symbol, descriptor: TypedPropertyDescriptor<H>): void => {
    applyDecorators(MessagePattern(method), UseFilters(RpcErrorPassthrough))(target, key, descriptor);
  };
}

/**
 * The reply a handler's error travels as: a DomainError's kind and code; `unavailable` when the
 * owner's own dependency (its database, the bus) is away, so the caller can answer 503 and be
 * retried; `internal` for anything else.
 */
function rpcErrorOf(error: unknown): Partial<RpcError> {
  if (error instanceof DomainError) {
    return { kind: error.kind, code: error.code, message: error.message, detailJson: error.detail ? JSON.stringify(error.detail) : '' };
  }
  const failure = unknownFailure(error);
  return { kind: failure.kind, code: failure.code, message: failure.message, detailJson: '' };
}

/** What a caller sees of an error that is not a DomainError (the original is kept only for the log). */
function unknownFailure(error: unknown): DomainError {
  return isDependencyUnavailable(error)
    ? new DomainError('unavailable', 'service_unavailable', 'A dependency of the service is unavailable; retry later')
    : new DomainError('internal', 'internal_error', 'Internal error');
}

type NestHandler = (data: unknown, ctx: NatsContext) => Promise<unknown>;

/**
 * The NATS transport strategy for request/reply (a `ServerNats` on the process's own bus
 * connection). Each `@RpcHandler(method)` is subscribed on `<prefix>.<region>.rpc.<method>` with the
 * queue group `rpc.<method>` (instances share load). The wire is today's: the request's protobuf
 * bytes, trace context in the `traceparent`/`tracestate` headers, the reply's protobuf bytes (an
 * error in its `error` field). Each request is handled in a `<method> handle` server span, a child
 * of the caller's span. The same handlers answer in-process calls ({@link BusRpcClient}).
 */
export class BusRpcServer extends ServerNats {
  private readonly busSubscriptions: Subscription[] = [];
  private readonly methodOfSubject = new Map<string, RpcMethod>();

  constructor(private readonly bus: BusConnection) {
    super({
      deserializer: {
        deserialize: (value: Uint8Array, options?: { channel?: string; replyTo?: string }) => ({
          pattern: options?.channel,
          id: options?.replyTo,
          data: value,
        }),
      },
    });
  }

  /**
   * Registers a handler wrapped so that it takes and returns protobuf bytes, runs in its server
   * span, and never rejects (an error comes back as an erroring observable, as Nest's own proxy does).
   */
  override addHandler(pattern: unknown, callback: NestHandler, isEventHandler = false, extras: Record<string, unknown> = {}): void {
    if (isEventHandler || !isRpcMethod(pattern)) {
      super.addHandler(pattern, callback as never, isEventHandler, extras);
      return;
    }
    const method = pattern;
    const spec = RPC_METHODS[method];
    const subject = rpcSubject(this.bus.prefix, this.bus.region, method);
    const wrapped = async (data: unknown, ctx: NatsContext): Promise<Observable<Uint8Array> | Uint8Array> => {
      const headers = ctx.getHeaders() as MsgHdrs | undefined;
      const local = headers === undefined;
      try {
        return await inSpan(
          `${method} handle`,
          {
            kind: SpanKind.SERVER,
            parent: local ? undefined : contextWithRemoteParent(traceOfHeaders(headers), ROOT_CONTEXT),
            attributes: { ...rpcAttributes(method, subject), 'rpc.local': local },
          },
          async () => {
            const request = fromBinary(spec.request, data as Uint8Array);
            const result = await callback(request, ctx);
            // Nest's handler proxy returns the method's value as is, or an erroring observable (filter).
            const init = isObservable(result) ? await lastValueFrom(result) : result;
            return toBinary(spec.reply, create(spec.reply, init as never));
          },
        );
      } catch (error) {
        return throwError(() => error);
      }
    };
    super.addHandler(method, wrapped as never, false, extras);
  }

  override async listen(callback: (err?: unknown, ...optionalParams: unknown[]) => void): Promise<void> {
    try {
      this.bindEvents(this.bus.nc);
      callback();
    } catch (error) {
      callback(error);
    }
  }

  override bindEvents(_client?: unknown): void {
    for (const [method, handler] of this.messageHandlers) {
      if (handler.isEventHandler || !isRpcMethod(method)) continue;
      const subject = rpcSubject(this.bus.prefix, this.bus.region, method);
      this.methodOfSubject.set(subject, method);
      const onMessage = this.getMessageHandler(method) as (error: Error | null, msg: Msg) => void;
      this.busSubscriptions.push(this.bus.nc.subscribe(subject, { queue: `rpc.${method}`, callback: onMessage }));
    }
  }

  /** Replies with the handler's protobuf bytes, or with its error in the reply's `error` field. */
  override getPublisher(natsMsg: Msg, _id: string, _ctx: NatsContext): (packet: WritePacket<Uint8Array>) => void {
    const method = this.methodOfSubject.get(natsMsg.subject);
    if (!natsMsg.reply || !method) return () => undefined;
    const spec = RPC_METHODS[method];
    return (packet) => {
      if (packet.err !== undefined) {
        natsMsg.respond(toBinary(spec.reply, create(spec.reply, { error: rpcErrorOf(packet.err) } as never)));
      } else if (packet.response !== undefined) {
        natsMsg.respond(packet.response);
      }
    };
  }

  /**
   * Stops answering other processes; the connection belongs to the process (closed with the
   * platform). In-process callers keep reaching the handlers until {@link release}: Nest closes
   * microservices before the shutdown hooks that stop this process's consumers, which may still
   * be calling them.
   */
  override async close(): Promise<void> {
    for (const subscription of this.busSubscriptions.splice(0)) {
      if (!this.bus.nc.isClosed()) subscription.unsubscribe();
    }
  }

  /** Forgets the handlers: in-process callers no longer reach them either. */
  release(): void {
    this.messageHandlers.clear();
  }

  /**
   * A method name is its own route: looked up directly (Nest's generic lookup first tries
   * `JSON.parse` on the pattern, whose exception costs tens of microseconds per call).
   */
  override getHandlerByPattern(pattern: string): ReturnType<ServerNats['getHandlerByPattern']> {
    return isRpcMethod(pattern) ? (this.messageHandlers.get(pattern) ?? null) : super.getHandlerByPattern(pattern);
  }

  /** The wrapped handler of a method registered in this process, if any (for local-first calls). */
  localHandler(method: RpcMethod): NestHandler | undefined {
    return this.messageHandlers.get(method) as NestHandler | undefined;
  }
}

/**
 * The `ClientProxy` of request/reply (a `ClientNats` on the process's bus connection): patterns
 * are method names, published on `<prefix>.<region>.rpc.<method>` with the active trace in the
 * headers; payloads and replies are protobuf bytes. Local first: when the method's handler is
 * registered in this process's {@link BusRpcServer} (monolithic mode), `publish` calls that handler
 * directly instead of crossing NATS, so the call keeps answering while the bus is down.
 */
export class BusRpcClient extends ClientNats {
  /**
   * @param server this process's request/reply server: its handlers answer calls in process.
   * @param region whose methods this client calls; the bus's own by default (another region's
   * methods are always asked over NATS).
   */
  constructor(
    private readonly bus: BusConnection,
    private readonly server?: BusRpcServer,
    readonly region: string = bus.region,
  ) {
    super({
      serializer: { serialize: (packet: ReadPacket<Uint8Array>) => ({ data: packet.data, headers: traceHeaders() }) },
    });
  }

  /** Uses the process's connection (kept across reconnects by the client library); never opens another. */
  override async connect(): Promise<unknown> {
    this.natsClient = this.bus.nc;
    return this.bus.nc;
  }

  /** The connection belongs to the process. */
  override async close(): Promise<void> {
    this.natsClient = null;
  }

  /**
   * A reply is the protobuf bytes as they came, which may be none at all (a reply whose fields all
   * hold their defaults, e.g. `found: false`): only the server's 503 status means nobody listens.
   */
  override createSubscriptionHandler(
    packet: ReadPacket & PacketId,
    callback: (packet: WritePacket) => unknown,
  ): (error: string | Error | undefined, natsMsg: Record<string, unknown>) => Promise<unknown> {
    return async (error, raw) => {
      const natsMsg = raw as unknown as Msg;
      if (error) return callback({ err: error, isDisposed: true });
      if (natsMsg.headers?.hasError && natsMsg.headers.code === 503) {
        return callback({ err: new Error(`no responders on ${this.normalizePattern(packet.pattern)}`), isDisposed: true });
      }
      return callback({ response: natsMsg.data, isDisposed: true });
    };
  }

  protected override normalizePattern(pattern: unknown): string {
    return isRpcMethod(pattern) ? rpcSubject(this.bus.prefix, this.region, pattern) : super.normalizePattern(pattern as string);
  }

  protected override publish(packet: ReadPacket<Uint8Array>, callback: (packet: WritePacket) => void): () => void {
    const handler = isRpcMethod(packet.pattern) ? this.localHandler(packet.pattern) : undefined;
    if (!handler) return super.publish(packet, callback);
    let cancelled = false;
    void this.callLocal(handler, packet.pattern as RpcMethod, packet.data).then(
      (response) => {
        if (!cancelled) callback({ response, isDisposed: true });
      },
      (err: unknown) => {
        if (!cancelled) callback({ err, isDisposed: true });
      },
    );
    return () => {
      cancelled = true;
    };
  }

  /**
   * Answers a call in process, through the handler's Nest pipeline (filter included), from and to
   * protobuf bytes; undefined when the method has no handler in this process. {@link RpcClient}
   * takes this path directly (no observable or timer per call: the hot path), `publish` for
   * `send()` callers.
   */
  async callLocal(handler: NestHandler, method: RpcMethod, request: Uint8Array): Promise<Uint8Array> {
    try {
      // No headers: the handler's span continues the active (call) span, in process.
      const result = await handler(request, new NatsContext([this.normalizePattern(method), undefined]));
      return result instanceof Uint8Array ? result : await lastValueFrom(result as Observable<Uint8Array>);
    } catch (error) {
      if (error instanceof DomainError) throw error;
      // What a remote caller would get; the original stays attached for the caller's error log.
      throw Object.assign(unknownFailure(error), { cause: error });
    }
  }

  /** The in-process handler of a method, if any (only for the process's own region). */
  localHandler(method: RpcMethod): NestHandler | undefined {
    return this.region === this.bus.region ? this.server?.localHandler(method) : undefined;
  }

  /** A client of the same connection for another region's methods. */
  forRegion(region: string): BusRpcClient {
    return new BusRpcClient(this.bus, this.server, region);
  }
}

/**
 * Typed request/reply over the {@link BusRpcClient}: `call(method, request)` encodes the request
 * with the method's protobuf schema from the contracts, sends it (local first), and decodes the
 * reply; a reply carrying an error is rethrown as the same DomainError, a call nobody answers in
 * time (or the bus refuses) as `unavailable`. The call is a `<method> call` client span.
 */
export class RpcClient {
  private readonly regions = new Map<string, RpcClient>();

  constructor(
    private readonly client: BusRpcClient,
    private readonly bus: BusConnection,
  ) {}

  /** Region whose services this client calls. */
  get region(): string {
    return this.client.region;
  }

  /**
   * The client of another region's methods on the same connection (every region's processes
   * share one NATS, or gateways joining them, with region-prefixed subjects).
   */
  inRegion(region: string): RpcClient {
    if (region === this.client.region) return this;
    let client = this.regions.get(region);
    if (!client) {
      client = new RpcClient(this.client.forRegion(region), this.bus);
      this.regions.set(region, client);
    }
    return client;
  }

  async call<M extends RpcMethod>(method: M, request: RpcRequestInit<M>, timeoutMs = RPC_TIMEOUT_MS): Promise<RpcReply<M>> {
    const spec = RPC_METHODS[method];
    const subject = rpcSubject(this.bus.prefix, this.client.region, method);
    const handler = this.client.localHandler(method);
    const attributes = { ...rpcAttributes(method, subject), 'rpc.local': handler !== undefined, 'cloud.region': this.client.region };
    return inSpan(`${method} call`, { kind: SpanKind.CLIENT, attributes }, async () => {
      const bytes = toBinary(spec.request, create(spec.request, request as never));
      let data: Uint8Array;
      try {
        data = handler
          ? await this.client.callLocal(handler, method, bytes)
          : await lastValueFrom(this.client.send<Uint8Array, Uint8Array>(method, bytes).pipe(timeout(timeoutMs)));
      } catch (error) {
        if (error instanceof DomainError) throw error;
        throw new DomainError('unavailable', 'service_unavailable', `Upstream ${method} did not answer`, {
          cause: error instanceof Error ? error.message : String(error),
        });
      }
      return replyOrThrow<M>(fromBinary(spec.reply, data) as RpcReply<M>);
    });
  }

  /**
   * {@link call} to another region's service that resolves undefined instead of throwing when
   * nobody answers in time or the answer is an error: for callers that fail closed (or act as if
   * the other region knew nothing) rather than fail the request.
   */
  async tryCallInRegion<M extends RpcMethod>(
    region: string,
    method: M,
    request: RpcRequestInit<M>,
    timeoutMs = RPC_TIMEOUT_MS,
  ): Promise<RpcReply<M> | undefined> {
    try {
      return await this.inRegion(region).call(method, request, timeoutMs);
    } catch {
      return undefined;
    }
  }
}

function replyOrThrow<M extends RpcMethod>(reply: RpcReply<M>): RpcReply<M> {
  const rpcError = (reply as { error?: RpcError }).error;
  if (rpcError && rpcError.code) {
    const kind = (KNOWN_KINDS.has(rpcError.kind) ? rpcError.kind : 'internal') as ErrorKind;
    const detail = rpcError.detailJson ? (JSON.parse(rpcError.detailJson) as Record<string, unknown>) : undefined;
    throw new DomainError(kind, rpcError.code, rpcError.message, detail);
  }
  return reply;
}

/** A running request/reply microservice outside an HTTP process (see {@link serveRpc}). */
export interface RpcService {
  server: BusRpcServer;
  /** A typed client of this bus whose calls to the service's methods stay in process. */
  client: RpcClient;
  close(): Promise<void>;
}

/**
 * Serves the `@RpcHandler` methods of the given controllers on the bus as a standalone NestJS
 * microservice (the processes boot theirs beside HTTP in `startProcess`).
 */
export async function serveRpc(bus: BusConnection, controllers: Type[], providers: Provider[] = []): Promise<RpcService> {
  @Module({ controllers, providers })
  class RpcServiceModule {}
  const server = new BusRpcServer(bus);
  const app = await NestFactory.createMicroservice<MicroserviceOptions>(RpcServiceModule, { strategy: server, logger: false });
  await app.listen();
  return {
    server,
    client: new RpcClient(new BusRpcClient(bus, server), bus),
    close: async () => {
      await app.close();
      server.release();
    },
  };
}

/** A typed client of the bus; its calls cross NATS unless `server` (this process's) has the handler. */
export function rpcClientOf(bus: BusConnection, server?: BusRpcServer): RpcClient {
  return new RpcClient(new BusRpcClient(bus, server), bus);
}
