import { Controller } from '@nestjs/common';
import { RpcHandler, type RpcReplyInit, type RpcRequest } from '@svc/bus';
import { GrantStatusDirectory } from './grant-status';

/** Serves `oap.grant_status` and `oap.consume_grant` to svc-verify in other regions. */
@Controller()
export class OapRpcHandlers {
  constructor(private readonly directory: GrantStatusDirectory) {}

  @RpcHandler('oap.grant_status')
  async grantStatus(request: RpcRequest<'oap.grant_status'>): Promise<RpcReplyInit<'oap.grant_status'>> {
    const status = await this.directory.local(request.grantId, request.kid);
    return {
      found: status.found,
      status: status.status,
      revokedAt: status.revokedAt ?? '',
      consumedAt: status.consumedAt ?? '',
      jwkJson: status.jwk ? JSON.stringify(status.jwk) : '',
    };
  }

  @RpcHandler('oap.consume_grant')
  async consumeGrant(request: RpcRequest<'oap.consume_grant'>): Promise<RpcReplyInit<'oap.consume_grant'>> {
    const result = await this.directory.consume(request.grantId);
    return { found: result?.found ?? false, consumed: result?.consumed ?? false };
  }
}
