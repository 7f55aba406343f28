import { Controller } from '@nestjs/common';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { RpcHandler, type RpcReplyInit, type RpcRequest } from '@svc/bus';
import { EscalationsRepository } from './escalations.repository';

/**
 * Serves `oap.get_approval_request`: the approval request of an escalation by its session token's
 * SHA-256, as oap.approval_requested publishes it. decision-gateway asks when an approval page is
 * requested before that event arrived, so the decision_url of a grant response works at once.
 */
@Controller()
export class ApprovalRequestRpcHandlers {
  constructor(private readonly escalations: EscalationsRepository) {}

  @RpcHandler('oap.get_approval_request')
  async getApprovalRequest(request: RpcRequest<'oap.get_approval_request'>): Promise<RpcReplyInit<'oap.get_approval_request'>> {
    if (!/^[0-9a-f]{64}$/.test(request.sessionTokenSha256)) return { found: false };
    const found = await this.escalations.findBySessionDigest(request.sessionTokenSha256);
    if (!found) return { found: false };
    const { escalation, proposalJson } = found;
    return {
      found: true,
      request: {
        meta: {
          applicationId: escalation.applicationId,
          eventType: 'oap.approval_requested',
          occurredAt: timestampFromDate(escalation.createdAt),
        },
        escalationId: escalation.id,
        agentId: escalation.agentId,
        authorityId: escalation.authorityId,
        principalId: escalation.principalId,
        quorumType: escalation.quorumType,
        approvers: escalation.approvers,
        threshold: escalation.threshold,
        decisionUrl: '',
        sessionTokenSha256: request.sessionTokenSha256,
        approvalTtlAt: escalation.approvalTtlAt.toISOString(),
        requestJson: escalation.requestJson,
        proposalJson,
      },
    };
  }
}
