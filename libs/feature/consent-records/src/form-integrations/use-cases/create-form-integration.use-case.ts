import { Injectable } from '@nestjs/common';
import type { Principal } from '@svc/auth';
import { Clock, PlatformConfig } from '@svc/config';
import { KeyEncryption } from '@svc/crypto';
import type { IdRegion } from '@svc/ids';
import { FlowsRepository } from '../../flows/flows.repository';
import { activeCapturableFlow } from '../../records/active-flow';
import { newFormIntegrationId, newFormSigningSecret, type FormIntegration } from '../form-integration';
import type { CreateFormIntegrationBody } from '../form-integrations.dto';
import { FormIntegrationsRepository } from '../form-integrations.repository';
import { assertMappingAcceptable } from '../form-mapping';

/**
 * Creates a form integration against a flow capturable in own forms, refusing a mapping by name
 * before any delivery arrives. The signing secret (to paste into the platform's webhook settings)
 * is returned here once and stored only encrypted under the key-encryption key.
 */
@Injectable()
export class CreateFormIntegration {
  constructor(
    private readonly flows: FlowsRepository,
    private readonly integrations: FormIntegrationsRepository,
    private readonly kek: KeyEncryption,
    private readonly clock: Clock,
    private readonly config: PlatformConfig,
  ) {}

  async execute(principal: Principal, body: CreateFormIntegrationBody): Promise<{ integration: FormIntegration; secret: string }> {
    const flow = await activeCapturableFlow(this.flows, principal.applicationId, body.flow_id);
    const purposes = body.purposes.map((p) => ({
      purpose: p.purpose,
      field_ref: p.field_ref,
      field_type: p.field_type,
      required: p.required ?? false,
      default_checked: p.default_checked ?? false,
    }));
    const subject = { email_field_ref: body.subject.email_field_ref, external_id_field_ref: body.subject.external_id_field_ref ?? null };
    assertMappingAcceptable(flow.terms, purposes, subject);
    const id = newFormIntegrationId(this.config.REGION as IdRegion);
    const secret = newFormSigningSecret();
    const integration: FormIntegration = {
      id,
      applicationId: principal.applicationId,
      platform: body.platform,
      flowId: flow.flowId,
      formId: body.form_id ?? null,
      purposes,
      subject,
      // aad = integration id: a ciphertext copied onto another integration's row does not decrypt.
      secretEnc: this.kek.encrypt(Buffer.from(secret, 'utf8'), id),
      createdAt: this.clock.now(),
    };
    await this.integrations.insert(integration);
    return { integration, secret };
  }
}
