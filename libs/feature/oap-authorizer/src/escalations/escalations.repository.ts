import { Injectable } from '@nestjs/common';
import { queryRows } from '@svc/persistence';
import { DataSource, type EntityManager } from 'typeorm';
import type { Escalation, EscalationStatus } from './escalation';

interface EscalationRow {
  id: string;
  application_id: string;
  agent_id: string;
  authority_id: string;
  principal_id: string;
  status: EscalationStatus;
  quorum_type: Escalation['quorumType'];
  approvers: string[];
  threshold: number;
  votes: Escalation['votes'];
  approval_ttl_at: Date;
  request_json: string;
  grant_id: string | null;
  created_at: Date;
  resolved_at: Date | null;
  counter_proposal: Record<string, unknown> | null;
}

const COLUMNS =
  'id, application_id, agent_id, authority_id, principal_id, status, quorum_type, approvers, threshold, votes, approval_ttl_at, request_json, grant_id, created_at, resolved_at, counter_proposal';

function toEscalation(row: EscalationRow): Escalation {
  return {
    id: row.id,
    applicationId: row.application_id,
    agentId: row.agent_id,
    authorityId: row.authority_id,
    principalId: row.principal_id,
    status: row.status,
    quorumType: row.quorum_type,
    approvers: row.approvers,
    threshold: row.threshold,
    votes: row.votes,
    approvalTtlAt: row.approval_ttl_at,
    requestJson: row.request_json,
    grantId: row.grant_id,
    createdAt: row.created_at,
    resolvedAt: row.resolved_at,
    counterProposal: row.counter_proposal,
  };
}

/** Queries of escalations. */
@Injectable()
export class EscalationsRepository {
  constructor(private readonly dataSource: DataSource) {}

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  /** `proposalJson`: what the approvers are shown (contracts ApprovalProposal). */
  async insert(manager: EntityManager, escalation: Escalation, sessionTokenSha256: string, proposalJson: string): Promise<void> {
    await manager.query(
      `INSERT INTO oap.escalations (id, application_id, agent_id, authority_id, principal_id, status, quorum_type, approvers, threshold, votes, session_token_sha256, approval_ttl_at, request_json, created_at, proposal_json)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)`,
      [
        escalation.id,
        escalation.applicationId,
        escalation.agentId,
        escalation.authorityId,
        escalation.principalId,
        escalation.status,
        escalation.quorumType,
        escalation.approvers,
        escalation.threshold,
        JSON.stringify(escalation.votes),
        sessionTokenSha256,
        escalation.approvalTtlAt,
        escalation.requestJson,
        escalation.createdAt,
        proposalJson,
      ],
    );
  }

  /** The escalation whose approval session token has this SHA-256, with what its approvers are shown. */
  async findBySessionDigest(sessionTokenSha256: string): Promise<{ escalation: Escalation; proposalJson: string } | undefined> {
    const rows: Array<EscalationRow & { proposal_json: string | null }> = await this.dataSource.query(
      `SELECT ${COLUMNS}, proposal_json FROM oap.escalations WHERE session_token_sha256 = $1`,
      [sessionTokenSha256],
    );
    return rows[0] ? { escalation: toEscalation(rows[0]), proposalJson: rows[0].proposal_json ?? '' } : undefined;
  }

  async find(id: string, manager: EntityManager = this.dataSource.manager, forUpdate = false): Promise<Escalation | undefined> {
    const rows: EscalationRow[] = await manager.query(
      `SELECT ${COLUMNS} FROM oap.escalations WHERE id = $1${forUpdate ? ' FOR UPDATE' : ''}`,
      [id],
    );
    return rows[0] ? toEscalation(rows[0]) : undefined;
  }

  async update(
    manager: EntityManager,
    id: string,
    patch: {
      status: EscalationStatus;
      votes: Escalation['votes'];
      grantId?: string;
      agentTokenSealed?: Buffer;
      resolvedAt?: Date;
      counterProposal?: Record<string, unknown>;
    },
  ): Promise<void> {
    await manager.query(
      `UPDATE oap.escalations SET status = $2, votes = $3, grant_id = COALESCE($4, grant_id), agent_token_enc = COALESCE($5, agent_token_enc), resolved_at = COALESCE($6, resolved_at),
         counter_proposal = COALESCE($7::jsonb, counter_proposal) WHERE id = $1`,
      [
        id,
        patch.status,
        JSON.stringify(patch.votes),
        patch.grantId ?? null,
        patch.agentTokenSealed ?? null,
        patch.resolvedAt ?? null,
        patch.counterProposal ? JSON.stringify(patch.counterProposal) : null,
      ],
    );
  }

  /** Ids of pending escalations whose approval TTL is at or before `cutoff`, oldest first. */
  async pendingDueBy(cutoff: Date, limit: number): Promise<string[]> {
    const rows: Array<{ id: string }> = await this.dataSource.query(
      `SELECT id FROM oap.escalations WHERE status = 'pending' AND approval_ttl_at <= $1 ORDER BY approval_ttl_at LIMIT $2`,
      [cutoff, limit],
    );
    return rows.map((r) => r.id);
  }

  /** Escalations still waiting for their approvers (reads only the partial index of pending rows). */
  async countOpen(): Promise<number> {
    const rows: Array<{ open: string }> = await this.dataSource.query(
      `SELECT count(*) AS open FROM oap.escalations WHERE status = 'pending'`,
    );
    return Number(rows[0]?.open ?? 0);
  }

  /** Hands out the sealed agent token of an approved escalation once, erasing it. */
  async takeSealedToken(id: string): Promise<Buffer | undefined> {
    const rows = await queryRows<{ token: Buffer }>(
      this.dataSource.manager,
      `UPDATE oap.escalations e SET agent_token_enc = NULL FROM (SELECT id, agent_token_enc AS token FROM oap.escalations WHERE id = $1 FOR UPDATE) old
       WHERE e.id = old.id AND old.token IS NOT NULL RETURNING old.token`,
      [id],
    );
    return rows[0]?.token;
  }
}
