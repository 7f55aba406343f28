import { create, fromBinary, toBinary, type MessageInitShape } from '@bufbuild/protobuf';
import { RPC_METHODS, rpcSubject, type RpcError, type RpcMethod } from '@svc/contracts';
import { DomainError, type ErrorKind } from '@svc/errors';
import type { Subscription } from 'nats';
import type { BusConnection } from './bus-connection';

type Method = (typeof RPC_METHODS)[RpcMethod];
type RequestOf<M extends RpcMethod> = MessageInitShape<(typeof RPC_METHODS)[M]['request']>;
type ReplyInit<M extends RpcMethod> = MessageInitShape<(typeof RPC_METHODS)[M]['reply']>;
type RequestMessage<M extends RpcMethod> = ReturnType<typeof create<(typeof RPC_METHODS)[M]['request']>>;
type ReplyMessage<M extends RpcMethod> = ReturnType<typeof create<(typeof RPC_METHODS)[M]['reply']>>;

const KNOWN_KINDS: ReadonlySet<string> = new Set<ErrorKind>([
  'invalid', 'unauthenticated', 'forbidden', 'not_found', 'conflict', 'gone', 'misdirected',
  'unprocessable', 'rate_limited', 'unavailable', 'internal',
]);

/** Serves request/reply methods over core NATS with a queue group per method (instances share load). */
export class RpcServer {
  private readonly subscriptions: Subscription[] = [];

  constructor(private readonly bus: BusConnection) {}

  handle<M extends RpcMethod>(method: M, handler: (request: RequestMessage<M>) => Promise<ReplyInit<M>>): void {
    const spec: Method = RPC_METHODS[method];
    const subject = rpcSubject(this.bus.prefix, this.bus.region, method);
    const subscription = this.bus.nc.subscribe(subject, { queue: `rpc.${method}` });
    this.subscriptions.push(subscription);
    void (async () => {
      for await (const msg of subscription) {
        let reply: Uint8Array;
        try {
          const request = fromBinary(spec.request, msg.data) as RequestMessage<M>;
          const init = await handler(request);
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
    for (const subscription of this.subscriptions) subscription.unsubscribe();
  }
}

/** Calls request/reply methods; a reply carrying an error is rethrown as the same DomainError. */
export class RpcClient {
  constructor(private readonly bus: BusConnection) {}

  /** Region whose services this client calls. */
  get region(): string {
    return this.bus.region;
  }

  async call<M extends RpcMethod>(method: M, request: RequestOf<M>, timeoutMs = 3_000): Promise<ReplyMessage<M>> {
    const spec: Method = RPC_METHODS[method];
    const subject = rpcSubject(this.bus.prefix, this.bus.region, method);
    let data: Uint8Array;
    try {
      const msg = await this.bus.nc.request(subject, toBinary(spec.request, create(spec.request, request as never)), { timeout: timeoutMs });
      data = msg.data;
    } catch (error) {
      throw new DomainError('unavailable', 'service_unavailable', `Upstream ${method} did not answer`, {
        cause: error instanceof Error ? error.message : String(error),
      });
    }
    const reply = fromBinary(spec.reply, data) as ReplyMessage<M> & { error?: RpcError };
    const rpcError = reply.error;
    if (rpcError && rpcError.code) {
      const kind = (KNOWN_KINDS.has(rpcError.kind) ? rpcError.kind : 'internal') as ErrorKind;
      const detail = rpcError.detailJson ? (JSON.parse(rpcError.detailJson) as Record<string, unknown>) : undefined;
      throw new DomainError(kind, rpcError.code, rpcError.message, detail);
    }
    return reply;
  }
}
