import { Controller, Inject } from '@nestjs/common';
import { BusConnection, EventConsumer, type DeliveredEvent } from '@svc/bus';
import { ApprovalDecidedSchema, decodeSealedEvent } from '@svc/contracts';
import { isDomainError } from '@svc/errors';
import { isIdOf } from '@svc/ids';
import { processOnce } from '@svc/persistence';
import { LOGGER } from '@svc/server';
import type { Logger } from '@svc/telemetry';
import { DataSource } from 'typeorm';
import { OVERSIGHT_SCHEMA } from '../schema';
import type { EscalationOutcome } from './attestation';
import { ResolveEscalation } from './use-cases/resolve-escalation.use-case';

const CONSUMER = 'oversight-witness-approval-outcomes';

/** Event types of decision-gateway's approval outcomes and what each means for an attestation. */
export const APPROVAL_OUTCOME_EVENTS: Readonly<Record<string, EscalationOutcome>> = {
  'approval.granted': 'approved',
  'approval.denied': 'denied',
  'approval.countered': 'countered',
};

/**
 * Completes escalated attestations from decision-gateway's `approval.granted` / `approval.denied`
 * / `approval.countered` events (selected by type string; matched by `reference` = attestation
 * id, which conductor escalations never use). Other approvals, unknown or already-resolved
 * attestations are skipped; the inbox makes redeliveries harmless.
 */
@Controller()
export class ApprovalOutcomes {
  constructor(
    private readonly bus: BusConnection,
    private readonly dataSource: DataSource,
    private readonly resolveEscalation: ResolveEscalation,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  /** Resolves the attestation an approval outcome refers to; false when the event was not ours or seen before. */
  @EventConsumer({ durable: CONSUMER, types: 'approval.>' })
  async handle(event: DeliveredEvent): Promise<boolean> {
    const outcome = APPROVAL_OUTCOME_EVENTS[event.eventType];
    if (!outcome) return false;
    const decided = decodeSealedEvent(ApprovalDecidedSchema, event.data, this.bus.personalData);
    if (!isIdOf('attestation', decided.reference)) return false;
    const applicationId = decided.meta?.applicationId ?? '';
    let resolved = false;
    await processOnce(this.dataSource, OVERSIGHT_SCHEMA, CONSUMER, event.id, async (manager) => {
      try {
        await this.resolveEscalation.execute(
          {
            applicationId,
            attestationId: decided.reference,
            outcome,
            counterProposal: outcome === 'countered' ? parseObject(decided.counterProposalJson) : null,
          },
          manager,
        );
        resolved = true;
      } catch (error) {
        if (!isDomainError(error)) throw error;
        this.logger.warn({ eventId: event.id, reason: error.code }, 'approval outcome for an attestation that cannot be resolved; skipped');
      }
    });
    return resolved;
  }
}

function parseObject(json: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(json);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
