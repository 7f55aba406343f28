import { Injectable, type OnModuleInit } from '@nestjs/common';
import { RpcServer } from '@svc/bus';
import { isIdOf } from '@svc/ids';
import { capturableInOwnForm } from './flow';
import { FlowsRepository } from './flows.repository';

/**
 * Answers `consent_records.get_flow` for decision-gateway (session creation) and the hosted flow
 * page: the active version (or a requested one) with its terms. Another application's flow and an
 * unknown one both answer found=false.
 */
@Injectable()
export class FlowsRpcHandlers implements OnModuleInit {
  constructor(
    private readonly rpc: RpcServer,
    private readonly flows: FlowsRepository,
  ) {}

  onModuleInit(): void {
    this.rpc.handle('consent_records.get_flow', async (request) => {
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
    });
  }
}
