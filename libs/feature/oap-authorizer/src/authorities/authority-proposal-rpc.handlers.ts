import { Controller, Inject } from '@nestjs/common';
import { ApplicationFactsReader, RpcHandler, type RpcReplyInit, type RpcRequest } from '@svc/bus';
import { Clock, PlatformConfig } from '@svc/config';
import { isIdOf } from '@svc/ids';
import type { OutboxWriter } from '@svc/persistence';
import { AgentsRepository } from '../agents/agents.repository';
import { OAP_OUTBOX } from '../tokens';
import { AuthoritiesRepository } from './authorities.repository';
import { emitAuthorityEvent } from './use-cases/authority-event';

const DIGEST = /^[0-9a-f]{64}$/;

/**
 * Serves the hosted proposal page of decision-gateway: `oap.get_authority_proposal` (the proposed
 * terms by the page token's SHA-256) and `oap.settle_authority_proposal` (the signed-in person's
 * grant, which makes them the principal and activates the authority, or decline).
 */
@Controller()
export class AuthorityProposalRpcHandlers {
  constructor(
    private readonly authorities: AuthoritiesRepository,
    private readonly agents: AgentsRepository,
    @Inject(OAP_OUTBOX) private readonly outbox: OutboxWriter,
    private readonly clock: Clock,
    private readonly config: PlatformConfig,
    private readonly applications: ApplicationFactsReader,
  ) {}

  @RpcHandler('oap.get_authority_proposal')
  async getProposal(request: RpcRequest<'oap.get_authority_proposal'>): Promise<RpcReplyInit<'oap.get_authority_proposal'>> {
    if (!DIGEST.test(request.proposalTokenSha256)) return { found: false };
    const authority = await this.authorities.findByProposalToken(request.proposalTokenSha256);
    if (!authority) return { found: false };
    const agent = await this.agents.find(authority.agentId);
    return {
      found: true,
      authorityId: authority.id,
      applicationId: authority.applicationId,
      agentId: authority.agentId,
      agentName: agent?.name ?? '',
      status: authority.status,
      boundsJson: authority.boundsJson,
      validFrom: authority.validFrom.toISOString(),
      validUntil: authority.validUntil.toISOString(),
      purposes: authority.purposes,
    };
  }

  @RpcHandler('oap.settle_authority_proposal')
  async settleProposal(request: RpcRequest<'oap.settle_authority_proposal'>): Promise<RpcReplyInit<'oap.settle_authority_proposal'>> {
    if (!DIGEST.test(request.proposalTokenSha256)) return { found: false };
    if (request.outcome !== 'grant' && request.outcome !== 'decline') return { found: false };
    if (request.outcome === 'grant' && !isIdOf('person', request.personId)) return { found: false };
    const existing = await this.authorities.findByProposalToken(request.proposalTokenSha256);
    if (!existing) return { found: false };
    const now = this.clock.now();
    const application = request.outcome === 'grant' ? await this.applications.of(existing.applicationId) : undefined;
    const settled = await this.authorities.transaction(async (manager) => {
      const moved = await this.authorities.settleProposal(
        manager,
        existing.id,
        request.outcome === 'grant' ? { status: 'active', principalId: request.personId } : { status: 'declined' },
        now,
      );
      if (moved?.status === 'active') {
        const agent = await this.agents.find(moved.agentId, manager);
        await emitAuthorityEvent(this.outbox, manager, 'authority.created', moved, now, '', {
          agentName: agent?.name ?? '',
          withdrawalUrl: `${this.config.publicBaseUrl}/api/v1/authorities/${moved.id}/revoke`,
          application,
        });
      }
      return moved;
    });
    return {
      found: true,
      authorityId: existing.id,
      status: settled?.status ?? (await this.authorities.find(existing.id))?.status ?? existing.status,
    };
  }
}
