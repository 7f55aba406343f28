import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { DomainError } from '@svc/errors';
import { ApiDoc, ApiResponseOf, IdempotencyExempt } from '@svc/server';
import { ConsentRecordsConfig } from '../consent-records.config';
import { consentRecordsError } from '../consent-records.errors';
import { referenceOf, subjectRef } from './directory';
import { DirectoryRepository } from './directory.repository';
import { CrossBorderStatusBody } from './directory.dto';
import { CrossBorderStatusResponse, crossBorderStatusView } from './directory.response';

/**
 * The cross-border directory (API token): does a person, homed in any region, hold an active
 * consent for a purpose at an application? Answered from this region's copy of the directory,
 * without asking the home region and without personal data: the reference is hashed under the
 * deployment's directory key and dropped.
 */
@Controller('api/v1/cross_border')
export class DirectoryController {
  private readonly key?: Buffer;

  constructor(
    private readonly entries: DirectoryRepository,
    config: ConsentRecordsConfig,
  ) {
    this.key = config.DIRECTORY_KEY ? Buffer.from(config.DIRECTORY_KEY, 'base64') : undefined;
  }

  @Post('consent_status')
  @IdempotencyExempt(
    'a question, not a change: a replay would answer a status that may have changed since (POST only because the body carries a personal reference)',
  )
  @HttpCode(200)
  @ApiResponseOf(CrossBorderStatusResponse)
  @ApiDoc({
    tag: 'Cross-border',
    summary:
      'Minimized consent status of a person of any region at an application, for one purpose (opaque identifier, status, count, initials)',
    errors: [400, 401, 404, 422],
  })
  async status(@Body() body: CrossBorderStatusBody): Promise<CrossBorderStatusResponse> {
    if (!this.key) throw consentRecordsError('directory_unavailable', 'The cross-border directory is not configured in this deployment');
    const reference = referenceOf(body.subject);
    if (!reference || (body.subject.external_id !== undefined && body.subject.email !== undefined)) {
      throw new DomainError('unprocessable', 'validation_failed', 'subject must name exactly one of external_id or email', {
        field: 'subject',
      });
    }
    const ref = subjectRef(this.key, body.application_id, reference);
    return crossBorderStatusView(ref, body.application_id, body.purpose, await this.entries.find(body.application_id, ref));
  }
}
