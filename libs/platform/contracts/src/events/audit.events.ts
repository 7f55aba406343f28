import { AuditCheckpointCosignedSchema, AuditCheckpointSignedSchema } from '../gen/svc/events/v1/audit_pb';
import type { EventEntry } from './event-entry';

/** Events of the audit chain (audit-chain). Never audited themselves: the chain does not log its own checkpoints. */
export const AUDIT_EVENTS = {
  'audit.checkpoint_signed': {
    schema: AuditCheckpointSignedSchema,
    version: 1,
    producer: 'audit-chain',
    webhook: false,
    audited: false,
    meaning: 'The region signed a new checkpoint of its audit chain',
  },
  'audit.checkpoint_cosigned': {
    schema: AuditCheckpointCosignedSchema,
    version: 1,
    producer: 'audit-chain',
    webhook: false,
    audited: false,
    meaning: 'An external witness cosigned a checkpoint of the audit chain',
  },
} as const satisfies Record<string, EventEntry>;
