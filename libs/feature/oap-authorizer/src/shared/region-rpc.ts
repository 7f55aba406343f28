import { create, fromBinary, toBinary, type MessageInitShape } from '@bufbuild/protobuf';
import { Injectable } from '@nestjs/common';
import { BusConnection } from '@svc/bus';
import { RPC_METHODS, rpcSubject, type RpcMethod } from '@svc/contracts';

type ReplyMessage<M extends RpcMethod> = ReturnType<typeof create<(typeof RPC_METHODS)[M]['reply']>>;

/**
 * Request/reply to the same service in another region. Every region's processes share one NATS
 * (or gateways joining them) with region-prefixed subjects, so asking `<prefix>.<region>.rpc.…`
 * reaches that region's oap-authorizer. Resolves undefined when nobody answers in time: callers
 * fail closed.
 */
@Injectable()
export class RegionRpc {
  constructor(private readonly bus: BusConnection) {}

  async call<M extends RpcMethod>(region: string, method: M, request: MessageInitShape<(typeof RPC_METHODS)[M]['request']>, timeoutMs = 2_000): Promise<ReplyMessage<M> | undefined> {
    const spec = RPC_METHODS[method];
    try {
      const message = await this.bus.nc.request(rpcSubject(this.bus.prefix, region, method), toBinary(spec.request, create(spec.request, request as never)), { timeout: timeoutMs });
      return fromBinary(spec.reply, message.data) as ReplyMessage<M>;
    } catch {
      return undefined;
    }
  }
}
