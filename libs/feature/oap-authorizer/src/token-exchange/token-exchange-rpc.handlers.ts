import { Controller } from '@nestjs/common';
import { RpcHandler, type RpcReplyInit, type RpcRequest } from '@svc/bus';
import type { ActClaim } from './exchange-rules';
import { MintAgentToken } from './mint-agent-token.use-case';

/** Serves `oap.mint_agent_token` to decision-gateway's token exchange grant (RFC 8693). */
@Controller()
export class TokenExchangeRpcHandlers {
  constructor(private readonly mint: MintAgentToken) {}

  @RpcHandler('oap.mint_agent_token')
  async mintAgentToken(request: RpcRequest<'oap.mint_agent_token'>): Promise<RpcReplyInit<'oap.mint_agent_token'>> {
    const outcome = await this.mint.execute({
      applicationId: request.applicationId,
      personId: request.personId,
      subjectScopes: request.subjectKind === 'access_token' ? undefined : (scopesOf(request.subjectScope) ?? []),
      subjectExpiresAt: new Date(request.subjectExpiresAt),
      subjectAct: request.subjectActJson ? (JSON.parse(request.subjectActJson) as ActClaim) : undefined,
      requestedScopes: scopesOf(request.requestedScope),
      actorToken: request.actorToken,
      dpop: { proof: request.dpopProof, method: request.dpopMethod, url: request.dpopUrl },
    });
    if (!outcome.ok) return { refusal: outcome.error, refusalDescription: outcome.description };
    return {
      agentToken: outcome.agentToken,
      grantId: outcome.grantId,
      scope: outcome.scope.join(' '),
      expiresIn: BigInt(Math.max(0, outcome.expiresIn)),
      actJson: JSON.stringify(outcome.act),
    };
  }
}

function scopesOf(value: string): string[] | undefined {
  const scopes = value.split(' ').filter(Boolean);
  return scopes.length > 0 ? scopes : undefined;
}
