import { Injectable } from '@nestjs/common';
import { Clock } from '@svc/config';
import { KeyEncryption } from '@svc/crypto';
import { isDomainError } from '@svc/errors';
import { consentRecordsError } from '../../consent-records.errors';
import { FlowsRepository } from '../../flows/flows.repository';
import { activeCapturableFlow } from '../../records/active-flow';
import { CAPTURED_AT_SKEW_MS } from '../../records/record-draft';
import { RecordWriter, type RecordDraft } from '../../records/record-writer';
import { isFormIntegrationId, type FormIntegration } from '../form-integration';
import { FormIntegrationsRepository } from '../form-integrations.repository';
import { decisionsFromDelivery } from '../form-mapping';
import { typeformSignatureMatches } from '../form-signature';
import { subjectFromDelivery } from '../form-subject';
import { parseTypeformDelivery, responseTokenOf, type FormDelivery } from '../typeform-delivery';

/** A delivery as received: the integration in the URL, the signature header, the exact body bytes and the parsed body. */
export interface FormWebhookDelivery {
  integrationId: string;
  signature: string | undefined;
  rawBody: Buffer | undefined;
  body: unknown;
}

/** What the intake did with a response: the record (new, or the one a redelivery made before). */
export interface FormIntakeOutcome {
  recordId: string;
  replayed: boolean;
  platform: FormIntegration['platform'];
}

/**
 * Takes in a hosted form platform's signed webhook (spec, What the service does 3): verifies the
 * signature over the raw body in constant time (401 otherwise, before anything is read), maps the
 * answers to decisions with the refusals by name, and writes the record through the record
 * writer with channel `form_platform_webhook` and the platform as `collection_platform`.
 * Idempotent on the platform's response token; a signed but refused response is kept with its
 * reason so the organisation can see it.
 */
@Injectable()
export class ReceiveFormResponse {
  constructor(
    private readonly integrations: FormIntegrationsRepository,
    private readonly flows: FlowsRepository,
    private readonly writer: RecordWriter,
    private readonly kek: KeyEncryption,
    private readonly clock: Clock,
  ) {}

  async execute(delivery: FormWebhookDelivery): Promise<FormIntakeOutcome> {
    const integration = isFormIntegrationId(delivery.integrationId) ? await this.integrations.find(delivery.integrationId) : undefined;
    if (!integration) throw consentRecordsError('form_integration_not_found', 'Form integration not found', {});
    this.assertSigned(integration, delivery);
    const token = responseTokenOf(delivery.body);
    try {
      const response = parseTypeformDelivery(delivery.body);
      if (response.eventType !== 'form_response') {
        throw consentRecordsError(
          'form_event_not_supported',
          `Only submitted responses (form_response) are recorded, not ${response.eventType}`,
          { event_type: response.eventType },
        );
      }
      if (integration.formId !== null && response.formId !== integration.formId) {
        throw consentRecordsError('form_mismatch', "The response belongs to another form than the integration's", {
          form_id: response.formId,
          expected_form_id: integration.formId,
        });
      }
      const seen = await this.integrations.intake(integration.id, response.token);
      if (seen?.outcome === 'recorded' && seen.recordId !== null)
        return { recordId: seen.recordId, replayed: true, platform: integration.platform };
      return await this.record(integration, response);
    } catch (error) {
      if (token !== undefined && isDomainError(error) && error.kind !== 'internal' && error.kind !== 'unavailable') {
        await this.integrations.saveRefused(integration.id, token, error.code, error.detail ?? {}, this.clock.now());
      }
      throw error;
    }
  }

  private assertSigned(integration: FormIntegration, delivery: FormWebhookDelivery): void {
    if (delivery.signature === undefined || delivery.signature === '') {
      throw consentRecordsError('form_signature_missing', 'The Typeform-Signature header is missing', {});
    }
    const secret = this.kek.decrypt(integration.secretEnc, integration.id).toString('utf8');
    if (!typeformSignatureMatches(secret, delivery.rawBody ?? Buffer.alloc(0), delivery.signature)) {
      throw consentRecordsError(
        'form_signature_invalid',
        "The Typeform-Signature does not match the body signed with the integration's secret",
        {},
      );
    }
  }

  private async record(integration: FormIntegration, response: FormDelivery): Promise<FormIntakeOutcome> {
    const now = this.clock.now();
    if (response.submittedAt.getTime() > now.getTime() + CAPTURED_AT_SKEW_MS) {
      throw consentRecordsError('captured_at_in_future', 'submitted_at lies in the future', { field: 'form_response.submitted_at' });
    }
    const flow = await activeCapturableFlow(this.flows, integration.applicationId, integration.flowId);
    const decisions = decisionsFromDelivery(flow.terms, integration.purposes, response);
    const subject = subjectFromDelivery(integration.subject, response);
    const draft: RecordDraft = {
      applicationId: integration.applicationId,
      flow,
      subject,
      decisions,
      capturedAt: response.submittedAt,
      noticeDigest: null,
      // Two deliveries of one response racing past the intake lookup meet here: the second replays.
      idempotencyKey: `form_integration:${integration.id}:${response.token}`,
      channel: 'form_platform_webhook',
      sendReceipt: true,
      collectionPlatform: integration.platform,
    };
    const outcome = await this.integrations.transaction(async (manager) => {
      const written = await this.writer.write(manager, draft, now);
      await this.integrations.saveRecorded(manager, integration.id, response.token, written.record.id, now);
      return written;
    });
    return { recordId: outcome.record.id, replayed: outcome.replayed, platform: integration.platform };
  }
}
