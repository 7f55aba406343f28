import type { SignatureFormat } from './signature-formats';
import type { WebhookSubscriptionResponse } from './subscription.response';

/** Why a subscription was disabled automatically. */
export type DisabledReason = 'endpoint_gone' | 'consecutive_failures';

/** A webhook subscription as stored (secrets still encrypted). */
export interface Subscription {
  id: string;
  applicationId: string;
  url: string;
  /** Environment of the owning application: decides which target addresses deliveries may reach. */
  environment: 'development' | 'production';
  events: string[];
  /** Signature header sets sent with each delivery; `svc` always among them. */
  signatureFormats: SignatureFormat[];
  status: 'enabled' | 'disabled';
  disabledReason: DisabledReason | null;
  disabledAt: Date | null;
  consecutiveFailures: number;
  secretEnc: Buffer;
  previousSecretEnc: Buffer | null;
  previousSecretExpiresAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

/**
 * API representation. The secret is never part of it: create and rotate add it once to their own
 * response. `previous_secret_expires_at` is set while a rotated-out secret still signs.
 */
export function subscriptionView(s: Subscription, now: Date): Record<string, unknown> {
  const previousActive = s.previousSecretExpiresAt !== null && s.previousSecretExpiresAt > now;
  return {
    id: s.id,
    object: 'webhook_subscription',
    application_id: s.applicationId,
    url: s.url,
    events: s.events,
    signature_formats: s.signatureFormats,
    status: s.status,
    disabled_reason: s.disabledReason,
    disabled_at: s.disabledAt?.toISOString() ?? null,
    consecutive_failures: s.consecutiveFailures,
    previous_secret_expires_at: previousActive ? s.previousSecretExpiresAt!.toISOString() : null,
    created_at: s.createdAt.toISOString(),
    updated_at: s.updatedAt.toISOString(),
  } satisfies WebhookSubscriptionResponse;
}
