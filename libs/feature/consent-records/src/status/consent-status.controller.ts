import { Controller, Get, Param, Query } from '@nestjs/common';
import { Auth, CurrentPrincipal, RequireCounterpartyScope, type Principal } from '@svc/auth';
import { Clock } from '@svc/config';
import { DomainError } from '@svc/errors';
import { ApiDoc, ApiResponseOf } from '@svc/server';
import { ConsentStatusResponse } from './consent-status.response';
import { consentRecordsError } from '../consent-records.errors';
import { purposeStatuses, recordStatus } from '../records/record';
import { RecordsRepository } from '../records/records.repository';
import { ConsentStatusQuery } from './consent-status.dto';

/**
 * Per-purpose consent status of one person, across the application's flows: the person's current
 * record per flow with its withdrawals and expiry applied. Another application's id answers like
 * an unknown one (404). A trust pairing's counterparty token with `consent_status:read` reads the
 * consent status of the pairing's issuing application.
 */
@Controller('api/v1/applications/:application_id/consent_status')
export class ConsentStatusController {
  constructor(
    private readonly records: RecordsRepository,
    private readonly clock: Clock,
  ) {}

  @Get()
  @Auth('api_token', 'counterparty_token')
  @RequireCounterpartyScope('consent_status:read')
  @ApiDoc({
    tag: 'Consent records',
    summary: 'Per-purpose consent status of a person (query subject[external_id] or subject[email])',
    response:
      'consent_status: object, application_id, subject {external_id|email}, purposes [{flow_id, flow_version, purpose, decision, status (granted|declined|withdrawn|expired), record_id, captured_at, recorded_at, withdrawn_at, withdrawal_channel}]',
  })
  @ApiResponseOf(ConsentStatusResponse)
  async status(
    @CurrentPrincipal() principal: Principal,
    @Param('application_id') applicationId: string,
    @Query() query: ConsentStatusQuery,
  ): Promise<ConsentStatusResponse> {
    if (applicationId !== principal.applicationId)
      throw consentRecordsError('application_not_found', 'Application not found', { application_id: applicationId });
    const externalId = query['subject[external_id]'];
    const email = query['subject[email]'];
    if ((externalId === undefined) === (email === undefined)) {
      throw new DomainError('invalid', 'invalid_request', 'give exactly one of subject[external_id] and subject[email]', {
        field: 'subject',
      });
    }
    const now = this.clock.now();
    const heads = await this.records.headsForSubject(
      applicationId,
      externalId !== undefined ? { external_id: externalId } : { email: email! },
    );
    const withdrawals = await this.records.withdrawalsOf(heads.map((r) => r.id));
    return {
      object: 'consent_status',
      application_id: applicationId,
      subject: externalId !== undefined ? { external_id: externalId } : { email },
      purposes: heads.flatMap((record) => {
        const own = withdrawals.filter((w) => w.recordId === record.id);
        return purposeStatuses(record, own, now).map((p) => ({
          flow_id: record.flowId,
          flow_version: record.flowVersion,
          ...p,
          record_id: record.id,
          record_status: recordStatus(record, own, true, now),
          captured_at: record.capturedAt.toISOString(),
          recorded_at: record.recordedAt.toISOString(),
        }));
      }),
    };
  }
}
