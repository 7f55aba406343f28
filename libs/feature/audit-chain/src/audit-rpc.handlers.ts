import { Controller } from '@nestjs/common';
import { RpcHandler, type RpcReplyInit } from '@svc/bus';
import { AuditChain } from './audit-chain.runtime';

/**
 * `audit.get_chain_info`: the region chain's genesis hash, origin and size, for
 * `/api/v1/oap/version` (`chronicle_genesis_hashes`) served by oap-authorizer.
 */
@Controller()
export class AuditRpcHandlers {
  constructor(private readonly chain: AuditChain) {}

  @RpcHandler('audit.get_chain_info')
  async chainInfo(): Promise<RpcReplyInit<'audit.get_chain_info'>> {
    return {
      region: this.chain.region,
      genesisHash: (await this.chain.genesisHash()) ?? '',
      origin: this.chain.origin,
      size: BigInt(await this.chain.entries.size()),
    };
  }
}
