import type { MessageInitShape } from '@bufbuild/protobuf';
import { Injectable } from '@nestjs/common';
import { RpcClient, type RpcReply } from '@svc/bus';
import type { RPC_METHODS, RpcMethod } from '@svc/contracts';

/**
 * Request/reply to the same service in another region, through the process's RPC client
 * ({@link RpcClient.inRegion}): asking `<prefix>.<region>.rpc.…` reaches that region's
 * oap-authorizer. Resolves undefined when nobody answers in time or the answer is an error:
 * callers fail closed. The call is a client span whose context the other region's handler continues.
 */
@Injectable()
export class RegionRpc {
  constructor(private readonly rpc: RpcClient) {}

  async call<M extends RpcMethod>(region: string, method: M, request: MessageInitShape<(typeof RPC_METHODS)[M]['request']>, timeoutMs = 2_000): Promise<RpcReply<M> | undefined> {
    try {
      return await this.rpc.inRegion(region).call(method, request, timeoutMs);
    } catch {
      return undefined;
    }
  }
}
