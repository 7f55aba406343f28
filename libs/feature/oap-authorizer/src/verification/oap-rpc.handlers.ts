import { Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { RpcServer } from '@svc/bus';
import { GrantStatusDirectory } from './grant-status';

/** Serves `oap.grant_status` and `oap.consume_grant` to svc-verify in other regions. */
@Injectable()
export class OapRpcHandlers implements OnApplicationBootstrap {
  constructor(
    private readonly server: RpcServer,
    private readonly directory: GrantStatusDirectory,
  ) {}

  onApplicationBootstrap(): void {
    this.server.handle('oap.grant_status', async (request) => {
      const status = await this.directory.local(request.grantId, request.kid);
      return {
        found: status.found,
        status: status.status,
        revokedAt: status.revokedAt ?? '',
        consumedAt: status.consumedAt ?? '',
        jwkJson: status.jwk ? JSON.stringify(status.jwk) : '',
      };
    });
    this.server.handle('oap.consume_grant', async (request) => {
      const result = await this.directory.consume(request.grantId);
      return { found: result?.found ?? false, consumed: result?.consumed ?? false };
    });
  }
}
