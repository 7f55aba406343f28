import { timestampDate } from '@bufbuild/protobuf/wkt';
import { Controller, Inject } from '@nestjs/common';
import { BusConnection, EventConsumer, type DeliveredEvent } from '@svc/bus';
import { ApprovalDecidedSchema, decodeSealedEvent } from '@svc/contracts';
import { DomainError } from '@svc/errors';
import { processOnce } from '@svc/persistence';
import { LOGGER } from '@svc/server';
import type { Logger } from '@svc/telemetry';
import { DataSource } from 'typeorm';
import { OAP_SCHEMA } from '../schema';
import { EscalationsRepository } from './escalations.repository';
import { ResolveEscalation, type EscalationOutcome } from './use-cases/resolve-escalation.use-case';

const CONSUMER = 'oap-authorizer-approval-outcomes';

/** Event type → outcome; the decisions surface aggregates the quorum before emitting one of these. */
const OUTCOMES: Readonly<Record<string, EscalationOutcome>> = {
  'approval.granted': 'approved',
  'approval.denied': 'denied',
  'approval.countered': 'countered',
};

/**
 * Resolves Conductor escalations from the decisions surface's aggregated `approval.*` events
 * (selected by type string; `reference` is the escalation id). Events of other producers
 * (Oversight attestations) carry other references and are skipped. An outcome is judged against
 * the approval TTL by when it was reached (the event's time, on the approval session whose deadline
 * is that TTL); one reached at or past the TTL expires the escalation, and one arriving after the
 * expiry sweep closed the escalation is not applied.
 */
@Controller()
export class ApprovalOutcomesConsumer {
  constructor(
    private readonly bus: BusConnection,
    private readonly dataSource: DataSource,
    private readonly escalations: EscalationsRepository,
    private readonly resolve: ResolveEscalation,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  @EventConsumer({ durable: CONSUMER, types: 'approval.>' })
  async handle(event: DeliveredEvent): Promise<void> {
    const outcome = OUTCOMES[event.eventType];
    if (!outcome) return;
    const decoded = decodeSealedEvent(ApprovalDecidedSchema, event.data, this.bus.personalData);
    const reference = decoded.reference;
    if (!reference.startsWith('esc_')) return;
    // When the decisions surface reached the outcome; held against the approval TTL (same deadline as its session).
    const decidedAt = decoded.meta?.occurredAt ? timestampDate(decoded.meta.occurredAt) : undefined;
    const counterProposal = outcome === 'countered' ? parseObject(decoded.counterProposalJson) : undefined;
    await processOnce(this.dataSource, OAP_SCHEMA, CONSUMER, event.id, async (manager) => {
      const escalation = await this.escalations.find(reference, manager, true);
      if (!escalation || escalation.status !== 'pending') return;
      try {
        await this.resolve.apply(manager, escalation, outcome, escalation.votes, decidedAt, counterProposal);
      } catch (error) {
        if (!(error instanceof DomainError)) throw error;
        this.logger.warn({ escalationId: reference, code: error.code }, 'approval outcome not applied');
      }
    });
  }
}

/** The counter proposal as sent by the decisions surface: a JSON object, `{}` when it is not one. */
function parseObject(json: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(json);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
