import { Injectable } from '@nestjs/common';
import type { Principal } from '@svc/auth';
import { Clock } from '@svc/config';
import { isIdOf } from '@svc/ids';
import { consentRecordsError } from '../../consent-records.errors';
import { FlowsRepository } from '../../flows/flows.repository';
import { subjectOf } from '../../records/record-draft';
import { RecordWriter } from '../../records/record-writer';
import { captureTokenDigest, type CaptureChannel } from '../capture';
import type { AuthorizeCaptureBody } from '../captures.dto';
import { CapturesRepository } from '../captures.repository';

/** Result of a commit: the spec's `status`, `record_id`, `channel`. */
export interface AuthorizedCapture {
  status: 'committed';
  recordId: string;
  channel: CaptureChannel;
}

/**
 * Commits a capture (API token, server side): binds the person by the supplied subject, writes
 * the record under the flow version captured (channel as captured: form_capture_browser or
 * embedded_field_browser), and publishes consent.recorded (send_receipt false when suppressed;
 * the service-rendered field's rendering digest as rendering_evidence_digest).
 * An expired capture is deleted and answers 410; a committed one 409 with its record id.
 */
@Injectable()
export class AuthorizeCapture {
  constructor(
    private readonly captures: CapturesRepository,
    private readonly flows: FlowsRepository,
    private readonly writer: RecordWriter,
    private readonly clock: Clock,
  ) {}

  async execute(principal: Principal, token: string, body: AuthorizeCaptureBody): Promise<AuthorizedCapture> {
    const now = this.clock.now();
    const subject = subjectOf(body.subject);
    const outcome = await this.captures.transaction(async (manager) => {
      const capture = isIdOf('capture_token', token)
        ? await this.captures.findForUpdate(manager, captureTokenDigest(token), principal.applicationId)
        : undefined;
      if (!capture) throw consentRecordsError('capture_not_found', 'Capture not found', {});
      if (capture.committedAt !== null)
        throw consentRecordsError('capture_already_committed', 'This capture was committed already', { record_id: capture.recordId });
      if (capture.expiresAt.getTime() <= now.getTime()) return { expired: true as const };
      const flow = await this.flows.find(principal.applicationId, capture.flowId, capture.flowVersion, { manager });
      if (!flow) throw consentRecordsError('flow_not_found', 'Flow not found', { flow_id: capture.flowId });
      const written = await this.writer.write(
        manager,
        {
          applicationId: principal.applicationId,
          flow,
          subject,
          decisions: capture.decisions,
          capturedAt: capture.createdAt,
          noticeDigest: null,
          idempotencyKey: null,
          channel: capture.channel,
          sendReceipt: body.suppress_receipt !== true,
          renderingEvidenceDigest: capture.renderingDigest,
        },
        now,
      );
      await this.captures.markCommitted(manager, capture.tokenSha256, written.record.id, now);
      return { expired: false as const, recordId: written.record.id, channel: capture.channel };
    });
    if (outcome.expired) {
      await this.captures.transaction((manager) => this.captures.delete(manager, captureTokenDigest(token)));
      throw consentRecordsError('capture_expired', 'The capture was not committed within 24 hours; it left no record', {});
    }
    return { status: 'committed', recordId: outcome.recordId, channel: outcome.channel };
  }
}
