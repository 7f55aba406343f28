import { AuditCheckpointCosignedSchema, AuditCheckpointSignedSchema } from '../gen/svc/events/v1/audit_pb';

/** Events of the audit chain (audit-chain). Never audit-worthy themselves: the chain does not log its own checkpoints. */
export const AUDIT_EVENTS = {
  'audit.checkpoint_signed': { schema: AuditCheckpointSignedSchema, version: 1 },
  'audit.checkpoint_cosigned': { schema: AuditCheckpointCosignedSchema, version: 1 },
} as const;
