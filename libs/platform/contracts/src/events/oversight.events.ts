import { AttestationWitnessedSchema, TrustedAttesterChangedSchema } from '../gen/svc/events/v1/oversight_pb';

/**
 * Events of OAP Oversight mode (oversight-witness). Escalations reuse `oap.approval_requested`
 * (OAP_EVENTS) so decision-gateway opens the approval session exactly as for conductor mode.
 */
export const OVERSIGHT_EVENTS = {
  'attestation.witnessed': { schema: AttestationWitnessedSchema, version: 1 },
  'trusted_attester.changed': { schema: TrustedAttesterChangedSchema, version: 1 },
} as const;
