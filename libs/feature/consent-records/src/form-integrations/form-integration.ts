import { isIdOf, newRegionalId, randomBase62, type IdRegion } from '@svc/ids';
import type { FormIntegrationResponse } from './form-integration.response';

/** Hosted form platforms whose signed webhooks can be taken in (closed list). */
export const FORM_PLATFORMS = ['typeform'] as const;
export type FormPlatform = (typeof FORM_PLATFORMS)[number];

/** One purpose of the flow and the form field that carries its decision, as the form defines it. */
export interface PurposeMapping {
  purpose: string;
  field_ref: string;
  /** The field's type in the platform's form definition, e.g. `yes_no`, `legal`, `multiple_choice`. */
  field_type: string;
  /** The field's `validations.required` in the platform's form definition. */
  required: boolean;
  /** The form pre-selects agreement (e.g. a pre-filled answer). */
  default_checked: boolean;
}

/** Which answers identify the person: an email field, and optionally an external id (a field or a hidden field). */
export interface SubjectMapping {
  email_field_ref: string;
  external_id_field_ref: string | null;
}

/** A form integration: deliveries of one platform's form, recorded against one flow. */
export interface FormIntegration {
  id: string;
  applicationId: string;
  platform: FormPlatform;
  flowId: string;
  /** The platform's form id; null accepts deliveries of any form signed with the secret. */
  formId: string | null;
  purposes: PurposeMapping[];
  subject: SubjectMapping;
  /** Signing secret, encrypted under the key-encryption key with the integration id as AAD. */
  secretEnc: Buffer;
  createdAt: Date;
}

/** `fint_<region>_<base32>`: an unguessable integration id (it is part of the webhook URL). */
export function newFormIntegrationId(region: IdRegion): string {
  return newRegionalId('form_integration', region);
}

export function isFormIntegrationId(value: string): boolean {
  return isIdOf('form_integration', value);
}

/** A fresh signing secret (~256 bits) to paste into the platform's webhook settings; shown once. */
export function newFormSigningSecret(): string {
  return `fisec_${randomBase62(43)}`;
}

/** Where the platform posts its deliveries (`publicBaseUrl`: the config's, without a trailing slash). */
export function webhookUrlOf(publicBaseUrl: string, id: string): string {
  return `${publicBaseUrl}/capture/v1/form_integrations/${id}/webhook`;
}

/** Wire shape `form_integration` (never the secret). */
export function formIntegrationView(integration: FormIntegration, publicBaseUrl: string): Record<string, unknown> {
  return {
    id: integration.id,
    object: 'form_integration',
    application_id: integration.applicationId,
    platform: integration.platform,
    flow_id: integration.flowId,
    form_id: integration.formId,
    purposes: integration.purposes,
    subject: integration.subject,
    webhook_url: webhookUrlOf(publicBaseUrl, integration.id),
    created_at: integration.createdAt.toISOString(),
  } satisfies FormIntegrationResponse;
}
