import { Controller, Get, Param } from '@nestjs/common';
import { ApiDoc, ApiResponseOf } from '@svc/server';
import { EscalationResponse } from './escalation.response';
import { CurrentPrincipal, type Principal } from '@svc/auth';
import { KeyEncryption } from '@svc/crypto';
import { oapError } from '../oap.errors';
import { escalationView } from './escalation';
import { EscalationsRepository } from './escalations.repository';

/** `/api/v1/oap/escalations/:id` (API token of the application that asked). */
@Controller('api/v1/oap/escalations')
export class EscalationsController {
  constructor(
    private readonly escalations: EscalationsRepository,
    private readonly kek: KeyEncryption,
  ) {}

  /**
   * The escalation and its outcome. After approval the first read also carries the issued
   * `agent_token` (DPoP-bound to the original `agent_dpop_jkt`) and `grant_attestation`; the
   * token is erased from storage as it is handed out, so later reads show only `grant_id`.
   */
  @ApiDoc({
    summary: 'An escalation and its outcome; after approval the first read carries the agent token',
    tag: 'OAP',
    errors: [401, 404],
  })
  @Get(':escalation_id')
  @ApiResponseOf(EscalationResponse)
  async get(@CurrentPrincipal() principal: Principal, @Param('escalation_id') id: string): Promise<Record<string, unknown>> {
    const escalation = await this.escalations.find(id);
    if (!escalation || escalation.applicationId !== principal.applicationId)
      throw oapError('escalation_not_found', 'Escalation not found', { escalation_id: id });
    const view = escalationView(escalation);
    if (escalation.status !== 'approved') return view;
    const sealed = await this.escalations.takeSealedToken(id);
    if (!sealed) return view;
    return { ...view, ...(JSON.parse(this.kek.decrypt(sealed, `escalation:${id}`).toString('utf8')) as Record<string, unknown>) };
  }
}
