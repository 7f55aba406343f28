import { Injectable } from '@nestjs/common';
import type { Principal } from '@svc/auth';
import { Clock, PlatformConfig } from '@svc/config';
import { newRegionalId, type IdRegion } from '@svc/ids';
import { FlowsRepository } from '../../flows/flows.repository';
import { activeCapturableFlow } from '../../records/active-flow';
import { ApplicationOrigins } from '../application-origins';
import { CAPTURE_LIFETIME_MS, captureTokenDigest, decisionsFromFields, type Capture } from '../capture';
import type { CreateCaptureBody } from '../captures.dto';
import { CapturesRepository } from '../captures.repository';
import { renderingEvidenceOf } from '../field-rendering';

/**
 * Stores the purposes' states the person chose in the organisation's own form, under a capture
 * token (`cap_<region>_…`) the snippet writes into `overturo_capture_token`. Authorized by the
 * publishable key and an allowed Origin; nothing is recorded until the organisation's server
 * commits it (authorize), and an uncommitted capture expires after 24 h leaving no record.
 */
@Injectable()
export class CreateCapture {
  constructor(
    private readonly flows: FlowsRepository,
    private readonly captures: CapturesRepository,
    private readonly origins: ApplicationOrigins,
    private readonly clock: Clock,
    private readonly config: PlatformConfig,
  ) {}

  async execute(principal: Principal, origin: string | undefined, body: CreateCaptureBody): Promise<{ token: string; capture: Capture }> {
    const allowedOrigin = await this.origins.assertAllowed(principal.applicationId, origin);
    const flow = await activeCapturableFlow(this.flows, principal.applicationId, body.flow_id);
    // Wording the person was shown first: a stale rendering explains any purpose mismatch below.
    const channel = body.channel ?? 'form_capture_browser';
    const renderingDigest = renderingEvidenceOf(flow, channel, body.rendering_digest);
    const decisions = decisionsFromFields(
      flow.terms,
      body.fields.map((f) => ({
        purpose: f.purpose,
        control: f.control,
        checked: f.checked,
        default_checked: f.default_checked ?? false,
        required: f.required ?? false,
      })),
    );
    const token = newRegionalId('capture_token', this.config.REGION as IdRegion);
    const now = this.clock.now();
    const capture: Capture = {
      tokenSha256: captureTokenDigest(token),
      applicationId: principal.applicationId,
      flowId: flow.flowId,
      flowVersion: flow.version,
      origin: allowedOrigin,
      channel,
      decisions,
      createdAt: now,
      expiresAt: new Date(now.getTime() + CAPTURE_LIFETIME_MS),
      committedAt: null,
      recordId: null,
      renderingDigest,
    };
    await this.captures.insert(capture);
    return { token, capture };
  }
}
