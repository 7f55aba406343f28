import { Injectable, type OnModuleInit } from '@nestjs/common';
import { RpcServer } from '@svc/bus';
import { AuditChain } from './audit-chain.runtime';

/**
 * `audit.get_chain_info`: the region chain's genesis hash, origin and size, for
 * `/api/v1/oap/version` (`chronicle_genesis_hashes`) served by oap-authorizer.
 */
@Injectable()
export class AuditRpcHandlers implements OnModuleInit {
  constructor(
    private readonly rpc: RpcServer,
    private readonly chain: AuditChain,
  ) {}

  onModuleInit(): void {
    this.rpc.handle('audit.get_chain_info', async () => ({
      region: this.chain.region,
      genesisHash: (await this.chain.genesisHash()) ?? '',
      origin: this.chain.origin,
      size: BigInt(await this.chain.entries.size()),
    }));
  }
}
