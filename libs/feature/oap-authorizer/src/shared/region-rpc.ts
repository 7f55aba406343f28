import { create, fromBinary, toBinary, type MessageInitShape } from '@bufbuild/protobuf';
import { Injectable } from '@nestjs/common';
import { BusConnection, traceHeaders } from '@svc/bus';
import { RPC_METHODS, rpcSubject, type RpcMethod } from '@svc/contracts';
import { SpanKind, inSpan, recordFailure } from '@svc/telemetry';

type ReplyMessage<M extends RpcMethod> = ReturnType<typeof create<(typeof RPC_METHODS)[M]['reply']>>;

/**
 * Request/reply to the same service in another region. Every region's processes share one NATS
 * (or gateways joining them) with region-prefixed subjects, so asking `<prefix>.<region>.rpc.…`
 * reaches that region's oap-authorizer. Resolves undefined when nobody answers in time: callers
 * fail closed. The call is a client span whose context the other region's handler continues.
 */
@Injectable()
export class RegionRpc {
  constructor(private readonly bus: BusConnection) {}

  async call<M extends RpcMethod>(region: string, method: M, request: MessageInitShape<(typeof RPC_METHODS)[M]['request']>, timeoutMs = 2_000): Promise<ReplyMessage<M> | undefined> {
    const spec = RPC_METHODS[method];
    return inSpan(`${method} call`, { kind: SpanKind.CLIENT, attributes: { 'rpc.system': 'nats', 'rpc.method': method, 'cloud.region': region } }, async (span) => {
      try {
        const subject = rpcSubject(this.bus.prefix, region, method);
        const message = await this.bus.nc.request(subject, toBinary(spec.request, create(spec.request, request as never)), { timeout: timeoutMs, headers: traceHeaders() });
        return fromBinary(spec.reply, message.data) as ReplyMessage<M>;
      } catch (error) {
        recordFailure(span, error);
        return undefined;
      }
    });
  }
}
