import { ApprovalRequestedSchema } from '../gen/svc/events/v1/oap_pb';
import { AttestationWitnessedSchema, TrustedAttesterChangedSchema } from '../gen/svc/events/v1/oversight_pb';
import type { EventEntry } from './event-entry';

/**
 * Events of OAP Oversight mode (oversight-witness). An escalation publishes
 * `oversight.approval_requested`, the message of conductor mode's `oap.approval_requested`, so
 * decision-gateway opens the approval session exactly as for conductor mode.
 */
export const OVERSIGHT_EVENTS = {
  'attestation.witnessed': {
    schema: AttestationWitnessedSchema,
    version: 1,
    producer: 'oversight-witness',
    webhook: false,
    audited: true,
    meaning: 'An attested agent decision was witnessed and its witness receipt signed',
  },
  'trusted_attester.changed': {
    schema: TrustedAttesterChangedSchema,
    version: 1,
    producer: 'oversight-witness',
    webhook: false,
    audited: true,
    meaning: 'A trusted attester was created, suspended, unsuspended, rotated, destroyed or elevated',
  },
  'oversight.approval_requested': {
    schema: ApprovalRequestedSchema,
    version: 1,
    producer: 'oversight-witness',
    webhook: false,
    audited: true,
    meaning: 'An attested decision requires human approval (decision-gateway opens the approval session)',
  },
} as const satisfies Record<string, EventEntry>;
