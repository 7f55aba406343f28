import { Controller } from '@nestjs/common';
import { RpcHandler, type RpcReplyInit, type RpcRequest } from '@svc/bus';
import { gatewayError } from '../gateway.errors';
import { ComplyService } from './comply.service';
import type { FlowTermsUnderCheck } from './rules/rule';

/**
 * `gateway.check_flow_activation`, asked by consent-records before a flow version becomes active:
 * governance (the actor's `activate_flows` role, four-eyes approval) and the enabled modules'
 * rules. A refusal travels as the reply's error, so consent-records answers it as is.
 */
@Controller()
export class ComplyRpcHandlers {
  constructor(private readonly comply: ComplyService) {}

  @RpcHandler('gateway.check_flow_activation')
  async checkFlowActivation(request: RpcRequest<'gateway.check_flow_activation'>): Promise<RpcReplyInit<'gateway.check_flow_activation'>> {
    let terms: FlowTermsUnderCheck;
    try {
      terms = JSON.parse(request.termsJson) as FlowTermsUnderCheck;
    } catch {
      throw gatewayError('change_request_invalid', 'terms_json is not JSON', { field: 'terms_json' });
    }
    const checked = await this.comply.checkFlowActivation(request.applicationId, request.actorId, request.flowId, request.version, terms);
    return { regimesChecked: checked.regimes, changeRequestId: checked.changeRequestId ?? '' };
  }
}
