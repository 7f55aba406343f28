import { Controller } from '@nestjs/common';
import { fromBinary } from '@bufbuild/protobuf';
import { BusConnection, EventConsumer, type DeliveredEvent } from '@svc/bus';
import { ApprovalRequestedSchema, EscalationResolvedSchema, decodeSealedEvent } from '@svc/contracts';
import type { EntityManager } from 'typeorm';
import { AppendReceiptTransition } from '../use-cases/append-receipt-transition.use-case';
import { eventTime } from './event-time';
import { ReceiptIntake, RECEIPT_INTAKE_DELIVERY } from './receipt-intake';

const CONSUMER = 'receipts-approvals';

/** Escalation outcomes that are approval events of the authority's record; `expired` has none. */
export const ESCALATION_OUTCOME_TRANSITIONS = {
  approved: 'approval_granted',
  denied: 'approval_denied',
  countered: 'approval_countered',
} as const;

/** An escalation's authority is not known yet: its `oap.approval_requested` has not been applied. */
class EscalationNotYetKnown extends Error {}

/**
 * Appends conductor-mode approvals to the authority's `authorization_record`:
 * `oap.approval_requested` → `approval requested` (the agent asked) and `oap.escalation_resolved`
 * → `approval granted` / `denied` / `countered`, with the escalation id as `approval_id`.
 * `oap.escalation_resolved` names only the escalation, so the authority is remembered from the
 * request. Oversight-mode escalations (no authority) and other `oap.*` events are not ours.
 */
@Controller()
export class ApprovalEvents {
  constructor(
    private readonly bus: BusConnection,
    private readonly intake: ReceiptIntake,
    private readonly append: AppendReceiptTransition,
  ) {}

  /** Applies one event; false when it was not an authority approval, was seen before, or was refused. */
  @EventConsumer({ durable: CONSUMER, types: 'oap.>' }, RECEIPT_INTAKE_DELIVERY)
  async handle(event: DeliveredEvent): Promise<boolean> {
    if (event.eventType === 'oap.approval_requested') {
      const requested = decodeSealedEvent(ApprovalRequestedSchema, event.data, this.bus.personalData);
      const applicationId = requested.meta?.applicationId ?? '';
      if (!applicationId || !requested.authorityId || !requested.escalationId) return false;
      return this.intake.once(CONSUMER, event, async (manager) => {
        const at = eventTime(undefined, requested.meta);
        await manager.query(
          `INSERT INTO receipts.approval_escalations (escalation_id, application_id, authority_id, requested_at) VALUES ($1, $2, $3, $4) ON CONFLICT (escalation_id) DO NOTHING`,
          [requested.escalationId, applicationId, requested.authorityId, at],
        );
        return this.append.execute(
          applicationId,
          requested.authorityId,
          { type: 'approval_requested', at, approval_id: requested.escalationId, entity_id: requested.agentId || undefined },
          event.id,
          manager,
        );
      });
    }
    if (event.eventType === 'oap.escalation_resolved') {
      const resolved = fromBinary(EscalationResolvedSchema, event.data);
      const type = ESCALATION_OUTCOME_TRANSITIONS[resolved.outcome as keyof typeof ESCALATION_OUTCOME_TRANSITIONS];
      if (!type || !resolved.escalationId) return false;
      return this.intake.once(CONSUMER, event, async (manager) => {
        const escalation = await this.escalation(manager, resolved.escalationId);
        return this.append.execute(
          escalation.applicationId,
          escalation.authorityId,
          { type, at: eventTime(undefined, resolved.meta), approval_id: resolved.escalationId },
          event.id,
          manager,
        );
      });
    }
    return false;
  }

  private async escalation(manager: EntityManager, escalationId: string): Promise<{ applicationId: string; authorityId: string }> {
    const rows: Array<{ application_id: string; authority_id: string }> = await manager.query(
      `SELECT application_id, authority_id FROM receipts.approval_escalations WHERE escalation_id = $1`,
      [escalationId],
    );
    // Redelivered until the request is applied (bounded by the consumer's maximum deliveries).
    if (!rows[0]) throw new EscalationNotYetKnown(`escalation ${escalationId} has no applied approval request yet`);
    return { applicationId: rows[0].application_id, authorityId: rows[0].authority_id };
  }
}
