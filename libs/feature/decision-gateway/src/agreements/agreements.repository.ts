import { Injectable } from '@nestjs/common';
import { queryRows } from '@svc/persistence';
import { DataSource, type EntityManager } from 'typeorm';
import type { QuorumType } from '../decisions/decision';
import type { Vote } from '../decisions/quorum';
import type { Agreement, AgreementDocument, AgreementParty, AgreementStatus, SigningOutcome } from './agreement';

interface AgreementRow {
  id: string;
  application_id: string;
  title: string;
  document_sha256: string;
  quorum_type: QuorumType;
  quorum_threshold: number | null;
  quorum_required: number;
  status: AgreementStatus;
  deadline: Date;
  created_at: Date;
  updated_at: Date;
  decided_at: Date | null;
}

interface PartyRow {
  id: string;
  agreement_id: string;
  position: number;
  role: string;
  person_id: string;
  home_region: string;
  session_token_sha256: string | null;
  decision_url: string;
  outcome: SigningOutcome | null;
  receipt_jws: string | null;
  counter_proposal: Record<string, unknown> | null;
  decided_at: Date | null;
}

function toAgreement(r: AgreementRow): Agreement {
  return {
    id: r.id,
    applicationId: r.application_id,
    title: r.title,
    documentSha256: r.document_sha256,
    quorumType: r.quorum_type,
    quorumThreshold: r.quorum_threshold,
    quorumRequired: r.quorum_required,
    status: r.status,
    deadline: r.deadline,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    decidedAt: r.decided_at,
  };
}

function toParty(r: PartyRow): AgreementParty {
  return {
    id: r.id,
    agreementId: r.agreement_id,
    position: r.position,
    role: r.role,
    personId: r.person_id,
    homeRegion: r.home_region,
    sessionTokenSha256: r.session_token_sha256,
    decisionUrl: r.decision_url,
    outcome: r.outcome,
    receiptJws: r.receipt_jws,
    counterProposal: r.counter_proposal,
    decidedAt: r.decided_at,
  };
}

/** The tally of an agreement's votes, expirations counted apart (they count as `no`). */
export interface AgreementTally {
  yes: number;
  no: number;
  counter: number;
  expired: number;
}

/** Queries of gateway.agreements, agreement_parties, agreement_votes, agreement_documents and agreement_remote_signings. */
@Injectable()
export class AgreementsRepository {
  constructor(private readonly dataSource: DataSource) {}

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  /** Stores a document's bytes once under their digest (a second agreement over the same bytes reuses them). */
  async putDocument(manager: EntityManager, document: AgreementDocument, at: Date): Promise<void> {
    await manager.query(
      `INSERT INTO gateway.agreement_documents (sha256, content, media_type, size_bytes, created_at) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (sha256) DO NOTHING`,
      [document.sha256, document.content, document.mediaType, document.sizeBytes, at],
    );
  }

  async findDocument(sha256: string): Promise<AgreementDocument | undefined> {
    const rows: Array<{ sha256: string; content: Buffer; media_type: string; size_bytes: number }> = await this.dataSource.query(
      `SELECT sha256, content, media_type, size_bytes FROM gateway.agreement_documents WHERE sha256 = $1`,
      [sha256],
    );
    const row = rows[0];
    return row ? { sha256: row.sha256, content: row.content, mediaType: row.media_type, sizeBytes: row.size_bytes } : undefined;
  }

  async insertAgreement(manager: EntityManager, a: Agreement): Promise<void> {
    await manager.query(
      `INSERT INTO gateway.agreements (id, application_id, title, document_sha256, quorum_type, quorum_threshold, quorum_required, status, deadline, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10)`,
      [a.id, a.applicationId, a.title, a.documentSha256, a.quorumType, a.quorumThreshold, a.quorumRequired, a.status, a.deadline, a.createdAt],
    );
  }

  async insertParty(manager: EntityManager, p: AgreementParty): Promise<void> {
    await manager.query(
      `INSERT INTO gateway.agreement_parties (id, agreement_id, position, role, person_id, home_region, session_token_sha256, decision_url) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [p.id, p.agreementId, p.position, p.role, p.personId, p.homeRegion, p.sessionTokenSha256, p.decisionUrl],
    );
  }

  /** An agreement; `applicationId` scopes it (another application's answers like an unknown one); `lock` takes its row lock. */
  async find(id: string, options: { manager?: EntityManager; applicationId?: string; lock?: boolean } = {}): Promise<Agreement | undefined> {
    const manager = options.manager ?? this.dataSource.manager;
    const rows: AgreementRow[] = await manager.query(
      `SELECT * FROM gateway.agreements WHERE id = $1 AND ($2::text IS NULL OR application_id = $2) ${options.lock ? 'FOR UPDATE' : ''}`,
      [id, options.applicationId ?? null],
    );
    return rows[0] ? toAgreement(rows[0]) : undefined;
  }

  /**
   * The application's agreements, oldest first, keyset after (created_at, id); `multiParty` keeps
   * those with two parties or more.
   */
  async list(applicationId: string, options: { status?: AgreementStatus; multiParty: boolean; limit: number; after?: { createdAt: string; id: string } }): Promise<Agreement[]> {
    const params: unknown[] = [applicationId, options.limit, options.status ?? null];
    let keyset = '';
    if (options.after) {
      params.push(options.after.createdAt, options.after.id);
      keyset = ' AND (a.created_at, a.id) > ($4::timestamptz, $5)';
    }
    const multi = options.multiParty ? ' AND (SELECT count(*) FROM gateway.agreement_parties p WHERE p.agreement_id = a.id) >= 2' : '';
    const rows: AgreementRow[] = await this.dataSource.query(
      `SELECT a.* FROM gateway.agreements a WHERE a.application_id = $1 AND ($3::text IS NULL OR a.status = $3)${multi}${keyset} ORDER BY a.created_at, a.id LIMIT $2`,
      params,
    );
    return rows.map(toAgreement);
  }

  /** The parties of several agreements, by agreement, in party order. */
  async partiesOf(agreementIds: string[]): Promise<Map<string, AgreementParty[]>> {
    const byAgreement = new Map<string, AgreementParty[]>(agreementIds.map((id) => [id, []]));
    if (agreementIds.length === 0) return byAgreement;
    const rows: PartyRow[] = await this.dataSource.query(`SELECT * FROM gateway.agreement_parties WHERE agreement_id = ANY($1::text[]) ORDER BY agreement_id, position`, [agreementIds]);
    for (const row of rows) byAgreement.get(row.agreement_id)?.push(toParty(row));
    return byAgreement;
  }

  /** Media type and size of several documents, by digest. */
  async documentsOf(digests: string[]): Promise<Map<string, { mediaType: string; sizeBytes: number }>> {
    if (digests.length === 0) return new Map();
    const rows: Array<{ sha256: string; media_type: string; size_bytes: number }> = await this.dataSource.query(
      `SELECT sha256, media_type, size_bytes FROM gateway.agreement_documents WHERE sha256 = ANY($1::text[])`,
      [[...new Set(digests)]],
    );
    return new Map(rows.map((r) => [r.sha256, { mediaType: r.media_type, sizeBytes: r.size_bytes }]));
  }

  async parties(agreementId: string, manager: EntityManager = this.dataSource.manager): Promise<AgreementParty[]> {
    const rows: PartyRow[] = await manager.query(`SELECT * FROM gateway.agreement_parties WHERE agreement_id = $1 ORDER BY position`, [agreementId]);
    return rows.map(toParty);
  }

  /** Records one party's vote, once: false when the party already voted. */
  async insertVote(manager: EntityManager, agreementId: string, partyId: string, vote: Vote, outcome: SigningOutcome, at: Date): Promise<boolean> {
    const rows: unknown[] = await manager.query(
      `INSERT INTO gateway.agreement_votes (agreement_id, party_id, vote, outcome, created_at) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT ON CONSTRAINT agreement_votes_once DO NOTHING RETURNING seq`,
      [agreementId, partyId, vote, outcome, at],
    );
    return rows.length > 0;
  }

  async tally(manager: EntityManager, agreementId: string): Promise<AgreementTally> {
    const rows: Array<{ vote: Vote; outcome: SigningOutcome; count: string }> = await manager.query(
      `SELECT vote, outcome, count(*) AS count FROM gateway.agreement_votes WHERE agreement_id = $1 GROUP BY vote, outcome`,
      [agreementId],
    );
    const tally: AgreementTally = { yes: 0, no: 0, counter: 0, expired: 0 };
    for (const row of rows) {
      tally[row.vote] += Number(row.count);
      if (row.outcome === 'expired') tally.expired += Number(row.count);
    }
    return tally;
  }

  async recordPartyOutcome(
    manager: EntityManager,
    partyId: string,
    outcome: { outcome: SigningOutcome; receiptJws: string; counterProposal: Record<string, unknown> | null; decidedAt: Date },
  ): Promise<void> {
    await manager.query(`UPDATE gateway.agreement_parties SET outcome = $2, receipt_jws = $3, counter_proposal = $4::jsonb, decided_at = $5 WHERE id = $1`, [
      partyId,
      outcome.outcome,
      outcome.receiptJws,
      outcome.counterProposal === null ? null : JSON.stringify(outcome.counterProposal),
      outcome.decidedAt,
    ]);
  }

  async setStatus(manager: EntityManager, id: string, status: AgreementStatus, decidedAt: Date | null, at: Date): Promise<Agreement> {
    const rows = await queryRows<AgreementRow>(
      manager,
      `UPDATE gateway.agreements SET status = $2, decided_at = COALESCE($3, decided_at), updated_at = $4 WHERE id = $1 RETURNING *`,
      [id, status, decidedAt, at],
    );
    return toAgreement(rows[0]!);
  }

  /**
   * Writes a change of the agreement into the history of every collaboration holding it, in the
   * caller's transaction (the agreement's row lock orders it against attaching).
   */
  async addCollaborationEvent(manager: EntityManager, agreementId: string, type: string, actor: string, at: Date): Promise<void> {
    await manager.query(
      `INSERT INTO gateway.collaboration_events (collaboration_id, type, actor, subject, created_at)
       SELECT collaboration_id, $2, $3, $1, $4 FROM gateway.collaboration_agreements WHERE agreement_id = $1 ORDER BY collaboration_id`,
      [agreementId, type, actor, at],
    );
  }

  /** The signing session this region opened for a party of an agreement homed elsewhere. */
  async findRemoteSigning(agreementId: string, partyId: string, manager: EntityManager = this.dataSource.manager): Promise<{ sessionTokenSha256: string; decisionUrl: string } | undefined> {
    const rows: Array<{ session_token_sha256: string; decision_url: string }> = await manager.query(
      `SELECT session_token_sha256, decision_url FROM gateway.agreement_remote_signings WHERE agreement_id = $1 AND party_id = $2`,
      [agreementId, partyId],
    );
    return rows[0] ? { sessionTokenSha256: rows[0].session_token_sha256, decisionUrl: rows[0].decision_url } : undefined;
  }

  async insertRemoteSigning(manager: EntityManager, agreementId: string, partyId: string, sessionTokenSha256: string, decisionUrl: string, at: Date): Promise<boolean> {
    const rows: unknown[] = await manager.query(
      `INSERT INTO gateway.agreement_remote_signings (agreement_id, party_id, session_token_sha256, decision_url, created_at) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT ON CONSTRAINT agreement_remote_signings_pk DO NOTHING RETURNING party_id`,
      [agreementId, partyId, sessionTokenSha256, decisionUrl, at],
    );
    return rows.length > 0;
  }
}
