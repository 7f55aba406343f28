import { Injectable } from '@nestjs/common';
import { queryRows } from '@svc/persistence';
import { DataSource, type EntityManager } from 'typeorm';
import type { AttestationDecision, AttestationStatus, LegalBasis } from './attestation';

/** A witnessed attestation as stored. */
export interface StoredAttestation {
  id: string;
  applicationId: string;
  attesterId: string;
  attestationKey: string;
  requestSha256: string;
  agentClass: string;
  actionClass: string;
  decision: AttestationDecision;
  decidedAt: Date;
  sequenceNumber: number;
  sequenceGap: boolean;
  /** The number that would have continued the sequence when a gap was flagged; null otherwise. */
  expectedSequenceNumber: number | null;
  legalBasis: LegalBasis;
  evidenceDigest: string;
  context: Record<string, unknown> | null;
  requiresHumanApproval: boolean;
  status: AttestationStatus;
  receivedAt: Date;
  receipt: string;
  receiptJti: string;
  approvalTtlAt: Date | null;
  resolutionReceipt: string | null;
  resolvedAt: Date | null;
  counterProposal: Record<string, unknown> | null;
}

interface Row {
  id: string;
  application_id: string;
  attester_id: string;
  attestation_key: string;
  request_sha256: string;
  agent_class: string;
  action_class: string;
  decision: AttestationDecision;
  decided_at: Date;
  sequence_number: string;
  sequence_gap: boolean;
  expected_sequence_number: string | null;
  legal_basis: LegalBasis;
  evidence_digest: string;
  context: Record<string, unknown> | null;
  requires_human_approval: boolean;
  status: AttestationStatus;
  received_at: Date;
  receipt: string;
  receipt_jti: string;
  approval_ttl_at: Date | null;
  resolution_receipt: string | null;
  resolved_at: Date | null;
  counter_proposal: Record<string, unknown> | null;
}

function toAttestation(row: Row): StoredAttestation {
  return {
    id: row.id,
    applicationId: row.application_id,
    attesterId: row.attester_id,
    attestationKey: row.attestation_key,
    requestSha256: row.request_sha256,
    agentClass: row.agent_class,
    actionClass: row.action_class,
    decision: row.decision,
    decidedAt: row.decided_at,
    // bigint columns arrive as strings; values are bounded by Number.MAX_SAFE_INTEGER at the edge.
    sequenceNumber: Number(row.sequence_number),
    sequenceGap: row.sequence_gap,
    expectedSequenceNumber: row.expected_sequence_number === null ? null : Number(row.expected_sequence_number),
    legalBasis: row.legal_basis,
    evidenceDigest: row.evidence_digest,
    context: row.context,
    requiresHumanApproval: row.requires_human_approval,
    status: row.status,
    receivedAt: row.received_at,
    receipt: row.receipt,
    receiptJti: row.receipt_jti,
    approvalTtlAt: row.approval_ttl_at,
    resolutionReceipt: row.resolution_receipt,
    resolvedAt: row.resolved_at,
    counterProposal: row.counter_proposal,
  };
}

/** Postgres unique-violation SQLSTATE. */
const UNIQUE_VIOLATION = '23505';

/** True when `error` is the unique violation of (application_id, attestation_key). */
export function isAttestationKeyConflict(error: unknown): boolean {
  const driver =
    (error as { driverError?: { code?: string; constraint?: string } }).driverError ?? (error as { code?: string; constraint?: string });
  return driver.code === UNIQUE_VIOLATION && driver.constraint === 'attestations_key_unique';
}

/** Witnessed attestations, sequence high-water marks per agent class (schema `oversight`). */
@Injectable()
export class AttestationsRepository {
  constructor(private readonly dataSource: DataSource) {}

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  async findByKey(applicationId: string, attestationKey: string, manager?: EntityManager): Promise<StoredAttestation | undefined> {
    const rows: Row[] = await (manager ?? this.dataSource.manager).query(
      `SELECT * FROM oversight.attestations WHERE application_id = $1 AND attestation_key = $2`,
      [applicationId, attestationKey],
    );
    return rows[0] ? toAttestation(rows[0]) : undefined;
  }

  async findById(manager: EntityManager, id: string, lock = false): Promise<StoredAttestation | undefined> {
    const rows = await queryRows<Row>(manager, `SELECT * FROM oversight.attestations WHERE id = $1${lock ? ' FOR UPDATE' : ''}`, [id]);
    return rows[0] ? toAttestation(rows[0]) : undefined;
  }

  /**
   * Locks the (application, agent_class) sequence row, creating it empty first, and returns the
   * highest sequence number accepted so far (null for a new agent class). Holding the lock until
   * commit serialises concurrent attestations of one class, so monotonicity cannot be raced.
   */
  /** The highest sequence number accepted for the agent class (0 before the first), read without a lock. */
  async lastSequence(applicationId: string, agentClass: string): Promise<number> {
    const rows: Array<{ last_sequence_number: string }> = await this.dataSource.query(
      `SELECT last_sequence_number FROM oversight.agent_class_sequences WHERE application_id = $1 AND agent_class = $2`,
      [applicationId, agentClass],
    );
    return Number(rows[0]?.last_sequence_number ?? 0);
  }

  async lockSequence(manager: EntityManager, applicationId: string, agentClass: string, now: Date): Promise<number | null> {
    await manager.query(
      `INSERT INTO oversight.agent_class_sequences (application_id, agent_class, last_sequence_number, updated_at)
       VALUES ($1, $2, 0, $3) ON CONFLICT ON CONSTRAINT agent_class_sequences_pkey DO NOTHING`,
      [applicationId, agentClass, now],
    );
    const rows = await queryRows<{ last_sequence_number: string }>(
      manager,
      `SELECT last_sequence_number FROM oversight.agent_class_sequences WHERE application_id = $1 AND agent_class = $2 FOR UPDATE`,
      [applicationId, agentClass],
    );
    const last = Number(rows[0]?.last_sequence_number ?? 0);
    return last === 0 ? null : last;
  }

  async advanceSequence(
    manager: EntityManager,
    applicationId: string,
    agentClass: string,
    sequenceNumber: number,
    now: Date,
  ): Promise<void> {
    await manager.query(
      `UPDATE oversight.agent_class_sequences SET last_sequence_number = $3, updated_at = $4 WHERE application_id = $1 AND agent_class = $2`,
      [applicationId, agentClass, sequenceNumber, now],
    );
  }

  async insert(manager: EntityManager, a: Omit<StoredAttestation, 'resolutionReceipt' | 'resolvedAt' | 'counterProposal'>): Promise<void> {
    await manager.query(
      `INSERT INTO oversight.attestations (id, application_id, attester_id, attestation_key, request_sha256, agent_class, action_class, decision,
         decided_at, sequence_number, sequence_gap, expected_sequence_number, legal_basis, evidence_digest, context, requires_human_approval,
         status, received_at, receipt, receipt_jti, approval_ttl_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21)`,
      [
        a.id,
        a.applicationId,
        a.attesterId,
        a.attestationKey,
        a.requestSha256,
        a.agentClass,
        a.actionClass,
        a.decision,
        a.decidedAt,
        a.sequenceNumber,
        a.sequenceGap,
        a.expectedSequenceNumber,
        a.legalBasis,
        a.evidenceDigest,
        a.context === null ? null : JSON.stringify(a.context),
        a.requiresHumanApproval,
        a.status,
        a.receivedAt,
        a.receipt,
        a.receiptJti,
        a.approvalTtlAt,
      ],
    );
  }

  async resolve(
    manager: EntityManager,
    id: string,
    resolution: { status: AttestationStatus; receipt: string; receiptJti: string; counterProposal: Record<string, unknown> | null },
    now: Date,
  ): Promise<StoredAttestation> {
    const rows = await queryRows<Row>(
      manager,
      `UPDATE oversight.attestations SET status = $2, resolution_receipt = $3, resolution_receipt_jti = $4, counter_proposal = $5, resolved_at = $6
        WHERE id = $1 RETURNING *`,
      [
        id,
        resolution.status,
        resolution.receipt,
        resolution.receiptJti,
        resolution.counterProposal === null ? null : JSON.stringify(resolution.counterProposal),
        now,
      ],
    );
    return toAttestation(rows[0] as Row);
  }

  /**
   * Takes the counter-proposals of `agentClass` not yet handed to the engine and marks them
   * delivered, in the caller's transaction: each reaches exactly one attestation response.
   */
  async takeUndeliveredCounters(
    manager: EntityManager,
    applicationId: string,
    agentClass: string,
    now: Date,
  ): Promise<StoredAttestation[]> {
    const rows = await queryRows<Row>(
      manager,
      `UPDATE oversight.attestations SET counter_delivered_at = $3
        WHERE id IN (SELECT id FROM oversight.attestations
                      WHERE application_id = $1 AND agent_class = $2 AND status = 'countered' AND counter_delivered_at IS NULL
                      ORDER BY resolved_at, id FOR UPDATE)
        RETURNING *`,
      [applicationId, agentClass, now],
    );
    return rows.map(toAttestation).sort((a, b) => (a.resolvedAt?.getTime() ?? 0) - (b.resolvedAt?.getTime() ?? 0));
  }
}
