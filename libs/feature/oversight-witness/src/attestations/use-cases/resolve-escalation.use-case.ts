import { Inject, Injectable } from '@nestjs/common';
import { Clock } from '@svc/config';
import type { ActiveSigningKey } from '@svc/crypto';
import type { OutboxWriter } from '@svc/persistence';
import type { EntityManager } from 'typeorm';
import { oversightError } from '../../oversight.errors';
import { OVERSIGHT_OUTBOX } from '../../tokens';
import type { EscalationOutcome } from '../attestation';
import { AttestationsRepository, type StoredAttestation } from '../attestations.repository';
import { WitnessReceiptSigner, policyClaims } from '../witness-receipt';
import { emitAttestationWitnessed } from './emit-attestation-witnessed';

/** A human's answer to an escalated attestation. */
export interface ResolveEscalationCommand {
  applicationId: string;
  attestationId: string;
  outcome: EscalationOutcome;
  /** The approver's counter-proposal (outcome `countered` only). */
  counterProposal?: Record<string, unknown> | null;
}

/**
 * Completes an escalated attestation (spec, "For origin attestation the three outcomes"):
 * approve → `approved`, deny → `denied`, each with a second witness receipt whose `decision` is
 * the outcome; counter → `countered`, witnessed likewise, and the counter-proposal is handed to the
 * engine in the response of its next attestation of the same agent class. Only a
 * `pending_approval` attestation of the same application can be resolved (409
 * `escalation_not_pending` otherwise; 404 for another application's id). Runs in the caller's
 * transaction when given one (the bus consumer's inbox transaction).
 */
@Injectable()
export class ResolveEscalation {
  constructor(
    private readonly attestations: AttestationsRepository,
    private readonly signer: WitnessReceiptSigner,
    @Inject(OVERSIGHT_OUTBOX) private readonly outbox: OutboxWriter,
    private readonly clock: Clock,
  ) {}

  async execute(command: ResolveEscalationCommand, manager?: EntityManager): Promise<StoredAttestation> {
    // Read before the transaction opens (see WitnessReceiptSigner.signingKey).
    const key = await this.signer.signingKey();
    if (manager) return this.resolve(manager, key, command);
    return this.attestations.transaction((m) => this.resolve(m, key, command));
  }

  private async resolve(manager: EntityManager, key: ActiveSigningKey, command: ResolveEscalationCommand): Promise<StoredAttestation> {
    const attestation = await this.attestations.findById(manager, command.attestationId, true);
    if (!attestation || attestation.applicationId !== command.applicationId) {
      throw oversightError('attestation_not_found', 'Attestation not found', { attestation_id: command.attestationId });
    }
    if (attestation.status !== 'pending_approval') {
      throw oversightError('escalation_not_pending', 'The attestation is not waiting for a human decision', { status: attestation.status });
    }
    const now = this.clock.now();
    const attestationDigest = `sha256:${attestation.requestSha256}`;
    const receipt = await this.signer.sign(key, {
      attestationId: attestation.id,
      decision: command.outcome,
      legalBasis: attestation.legalBasis,
      ...policyClaims(attestation.context, attestation.attesterId),
      attestationDigest,
      issuedAt: now,
    });
    const resolved = await this.attestations.resolve(
      manager,
      attestation.id,
      {
        status: command.outcome,
        receipt: receipt.token,
        receiptJti: receipt.jti,
        counterProposal: command.outcome === 'countered' ? (command.counterProposal ?? {}) : null,
      },
      now,
    );
    await emitAttestationWitnessed(this.outbox, manager, resolved, { receipt: receipt.token, jti: receipt.jti, attestationDigest }, now);
    return resolved;
  }
}
