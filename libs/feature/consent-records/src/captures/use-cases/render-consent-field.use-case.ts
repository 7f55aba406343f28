import { Injectable } from '@nestjs/common';
import type { Principal } from '@svc/auth';
import { FlowsRepository } from '../../flows/flows.repository';
import { activeCapturableFlow } from '../../records/active-flow';
import { ApplicationOrigins } from '../application-origins';
import { renderConsentField, type ConsentFieldRendering } from '../field-rendering';

/**
 * The consent field's rendering for a browser (publishable key and an allowed Origin): the active
 * version of a flow capturable in the organisation's own form, refused by name otherwise
 * (flow_not_found, flow_not_active, flow_not_capturable), like capture creation.
 */
@Injectable()
export class RenderConsentField {
  constructor(
    private readonly flows: FlowsRepository,
    private readonly origins: ApplicationOrigins,
  ) {}

  async execute(principal: Principal, origin: string | undefined, flowId: string): Promise<ConsentFieldRendering> {
    await this.origins.assertAllowed(principal.applicationId, origin);
    return renderConsentField(await activeCapturableFlow(this.flows, principal.applicationId, flowId));
  }
}
