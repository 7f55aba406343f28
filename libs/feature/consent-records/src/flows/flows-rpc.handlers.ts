import { Controller } from '@nestjs/common';
import { RpcHandler, type RpcReplyInit, type RpcRequest } from '@svc/bus';
import { isIdOf } from '@svc/ids';
import { capturableInOwnForm } from './flow';
import { FlowsRepository } from './flows.repository';

/**
 * Answers `consent_records.get_flow` for decision-gateway (session creation) and the hosted flow
 * page: the active version (or a requested one) with its terms. Another application's flow and an
 * unknown one both answer found=false.
 */
@Controller()
export class FlowsRpcHandlers {
  constructor(private readonly flows: FlowsRepository) {}

  @RpcHandler('consent_records.get_flow')
  async getFlow(request: RpcRequest<'consent_records.get_flow'>): Promise<RpcReplyInit<'consent_records.get_flow'>> {
    if (!isIdOf('flow', request.flowId)) return { found: false };
    const latest = await this.flows.find(request.applicationId, request.flowId);
    if (!latest) return { found: false };
    const wanted = request.version || latest.activeVersion || latest.version;
    const flow = wanted === latest.version ? latest : await this.flows.find(request.applicationId, request.flowId, wanted);
    if (!flow) return { found: false };
    const { terms } = flow;
    return {
      found: true,
      flowId: flow.flowId,
      version: flow.version,
      status: flow.status,
      activeVersion: flow.activeVersion ?? 0,
      consentPath: terms.consent_path,
      requirements: terms.requirements,
      consentDuration: terms.consent_duration ?? '',
      locale: terms.locale,
      title: terms.presentation.title,
      description: terms.presentation.description,
      policyUrl: terms.policy_url ?? '',
      purposes: terms.purposes,
      capturableInOwnForm: capturableInOwnForm(terms),
    };
  }
}
