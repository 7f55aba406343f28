import type { OutboxWriter } from '@svc/persistence';
import type { EntityManager } from 'typeorm';
import type { StoredAttestation } from '../attestations.repository';

/** Emits `attestation.witnessed` (one per witness receipt) for the audit chain, in the caller's transaction. */
export async function emitAttestationWitnessed(
  outbox: OutboxWriter,
  manager: EntityManager,
  attestation: StoredAttestation,
  receipt: { receipt: string; jti: string; attestationDigest: string },
  at: Date,
): Promise<void> {
  await outbox.add(
    manager,
    'attestation.witnessed',
    {
      attestationId: attestation.id,
      attestationKey: attestation.attestationKey,
      attesterId: attestation.attesterId,
      agentClass: attestation.agentClass,
      actionClass: attestation.actionClass,
      decision: attestation.decision,
      status: attestation.status,
      sequenceNumber: BigInt(attestation.sequenceNumber),
      sequenceGap: attestation.sequenceGap,
      legalBasis: attestation.legalBasis,
      evidenceDigest: attestation.evidenceDigest,
      attestationDigest: receipt.attestationDigest,
      receipt: receipt.receipt,
      receiptJti: receipt.jti,
      decidedAt: attestation.decidedAt.toISOString(),
    },
    { applicationId: attestation.applicationId, occurredAt: at },
  );
}
