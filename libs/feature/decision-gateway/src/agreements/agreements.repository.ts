import { Injectable } from '@nestjs/common';
import { queryRows } from '@svc/persistence';
import { DataSource, type EntityManager } from 'typeorm';
import type { QuorumType } from '../decisions/decision';
import type { Vote } from '../decisions/quorum';
import type {
  Agreement,
  AgreementDocument,
  AgreementParty,
  AgreementStatus,
  Amendment,
  AmendmentParty,
  AmendmentStatus,
  SigningOutcome,
} from './agreement';

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
  current_document_sha256: string | null;
}

interface AmendmentRow {
  id: string;
  agreement_id: string;
  number: number;
  document_sha256: string;
  previous_document_sha256: string;
  status: AmendmentStatus;
  deadline: Date;
  created_at: Date;
  updated_at: Date;
  decided_at: Date | null;
}

interface AmendmentPartyRow {
  amendment_id: string;
  party_id: string;
  session_token_sha256: string | null;
  decision_url: string;
  outcome: SigningOutcome | null;
  receipt_jws: string | null;
  decided_at: Date | null;
}

function toAmendment(r: AmendmentRow): Amendment {
  return {
    id: r.id,
    agreementId: r.agreement_id,
    number: r.number,
    documentSha256: r.document_sha256,
    previousDocumentSha256: r.previous_document_sha256,
    status: r.status,
    deadline: r.deadline,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    decidedAt: r.decided_at,
  };
}

function toAmendmentParty(r: AmendmentPartyRow): AmendmentParty {
  return {
    amendmentId: r.amendment_id,
    partyId: r.party_id,
    sessionTokenSha256: r.session_token_sha256,
    decisionUrl: r.decision_url,
    outcome: r.outcome,
    receiptJws: r.receipt_jws,
    decidedAt: r.decided_at,
  };
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
    currentDocumentSha256: r.current_document_sha256,
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
      [
        a.id,
        a.applicationId,
        a.title,
        a.documentSha256,
        a.quorumType,
        a.quorumThreshold,
        a.quorumRequired,
        a.status,
        a.deadline,
        a.createdAt,
      ],
    );
  }

  async insertParty(manager: EntityManager, p: AgreementParty): Promise<void> {
    await manager.query(
      `INSERT INTO gateway.agreement_parties (id, agreement_id, position, role, person_id, home_region, session_token_sha256, decision_url) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [p.id, p.agreementId, p.position, p.role, p.personId, p.homeRegion, p.sessionTokenSha256, p.decisionUrl],
    );
  }

  /** An agreement; `applicationId` scopes it (another application's answers like an unknown one); `lock` takes its row lock. */
  async find(
    id: string,
    options: { manager?: EntityManager; applicationId?: string; lock?: boolean } = {},
  ): Promise<Agreement | undefined> {
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
  async list(
    applicationId: string,
    options: { status?: AgreementStatus; multiParty: boolean; limit: number; after?: { createdAt: string; id: string } },
  ): Promise<Agreement[]> {
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
    const rows: PartyRow[] = await this.dataSource.query(
      `SELECT * FROM gateway.agreement_parties WHERE agreement_id = ANY($1::text[]) ORDER BY agreement_id, position`,
      [agreementIds],
    );
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
    const rows: PartyRow[] = await manager.query(`SELECT * FROM gateway.agreement_parties WHERE agreement_id = $1 ORDER BY position`, [
      agreementId,
    ]);
    return rows.map(toParty);
  }

  /** Records one party's vote, once: false when the party already voted. */
  async insertVote(
    manager: EntityManager,
    agreementId: string,
    partyId: string,
    vote: Vote,
    outcome: SigningOutcome,
    at: Date,
  ): Promise<boolean> {
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
    await manager.query(
      `UPDATE gateway.agreement_parties SET outcome = $2, receipt_jws = $3, counter_proposal = $4::jsonb, decided_at = $5 WHERE id = $1`,
      [
        partyId,
        outcome.outcome,
        outcome.receiptJws,
        outcome.counterProposal === null ? null : JSON.stringify(outcome.counterProposal),
        outcome.decidedAt,
      ],
    );
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
  async findRemoteSigning(
    agreementId: string,
    partyId: string,
    amendmentId = '',
    manager: EntityManager = this.dataSource.manager,
  ): Promise<{ sessionTokenSha256: string; decisionUrl: string } | undefined> {
    const rows: Array<{ session_token_sha256: string; decision_url: string }> = await manager.query(
      `SELECT session_token_sha256, decision_url FROM gateway.agreement_remote_signings WHERE agreement_id = $1 AND party_id = $2 AND amendment_id = $3`,
      [agreementId, partyId, amendmentId],
    );
    return rows[0] ? { sessionTokenSha256: rows[0].session_token_sha256, decisionUrl: rows[0].decision_url } : undefined;
  }

  async insertRemoteSigning(
    manager: EntityManager,
    agreementId: string,
    partyId: string,
    sessionTokenSha256: string,
    decisionUrl: string,
    at: Date,
    amendmentId = '',
  ): Promise<boolean> {
    const rows: unknown[] = await manager.query(
      `INSERT INTO gateway.agreement_remote_signings (agreement_id, party_id, session_token_sha256, decision_url, created_at, amendment_id) VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT ON CONSTRAINT agreement_remote_signings_pk DO NOTHING RETURNING party_id`,
      [agreementId, partyId, sessionTokenSha256, decisionUrl, at, amendmentId],
    );
    return rows.length > 0;
  }

  /** How many amendments each agreement has. */
  async amendmentCounts(agreementIds: string[]): Promise<Map<string, number>> {
    if (agreementIds.length === 0) return new Map();
    const rows: Array<{ agreement_id: string; count: string }> = await this.dataSource.query(
      `SELECT agreement_id, count(*) AS count FROM gateway.agreement_amendments WHERE agreement_id = ANY($1::text[]) GROUP BY agreement_id`,
      [agreementIds],
    );
    return new Map(rows.map((r) => [r.agreement_id, Number(r.count)]));
  }

  async insertAmendment(manager: EntityManager, a: Amendment): Promise<void> {
    await manager.query(
      `INSERT INTO gateway.agreement_amendments (id, agreement_id, number, document_sha256, previous_document_sha256, status, deadline, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8)`,
      [a.id, a.agreementId, a.number, a.documentSha256, a.previousDocumentSha256, a.status, a.deadline, a.createdAt],
    );
  }

  async insertAmendmentParty(manager: EntityManager, p: AmendmentParty): Promise<void> {
    await manager.query(
      `INSERT INTO gateway.agreement_amendment_parties (amendment_id, party_id, session_token_sha256, decision_url) VALUES ($1, $2, $3, $4)`,
      [p.amendmentId, p.partyId, p.sessionTokenSha256, p.decisionUrl],
    );
  }

  async findAmendment(id: string, manager: EntityManager = this.dataSource.manager): Promise<Amendment | undefined> {
    const rows: AmendmentRow[] = await manager.query(`SELECT * FROM gateway.agreement_amendments WHERE id = $1`, [id]);
    return rows[0] ? toAmendment(rows[0]) : undefined;
  }

  /** The agreement's amendments, by number; `afterNumber` for keyset pages. */
  async amendments(
    agreementId: string,
    options: { limit?: number; afterNumber?: number; manager?: EntityManager } = {},
  ): Promise<Amendment[]> {
    const rows: AmendmentRow[] = await (options.manager ?? this.dataSource.manager).query(
      `SELECT * FROM gateway.agreement_amendments WHERE agreement_id = $1 AND ($2::int IS NULL OR number > $2) ORDER BY number LIMIT $3`,
      [agreementId, options.afterNumber ?? null, options.limit ?? 1000],
    );
    return rows.map(toAmendment);
  }

  /** The parties' sessions and answers of several amendments, by amendment. */
  async amendmentPartiesOf(
    amendmentIds: string[],
    manager: EntityManager = this.dataSource.manager,
  ): Promise<Map<string, AmendmentParty[]>> {
    const byAmendment = new Map<string, AmendmentParty[]>(amendmentIds.map((id) => [id, []]));
    if (amendmentIds.length === 0) return byAmendment;
    const rows: AmendmentPartyRow[] = await manager.query(
      `SELECT ap.* FROM gateway.agreement_amendment_parties ap JOIN gateway.agreement_parties p ON p.id = ap.party_id
       WHERE ap.amendment_id = ANY($1::text[]) ORDER BY ap.amendment_id, p.position`,
      [amendmentIds],
    );
    for (const row of rows) byAmendment.get(row.amendment_id)?.push(toAmendmentParty(row));
    return byAmendment;
  }

  /** Records one party's vote on an amendment, once: false when the party already voted. */
  async recordAmendmentVote(
    manager: EntityManager,
    amendmentId: string,
    partyId: string,
    vote: Vote,
    outcome: { outcome: SigningOutcome; receiptJws: string; counterProposal: Record<string, unknown> | null; decidedAt: Date },
  ): Promise<boolean> {
    const rows = await queryRows<{ party_id: string }>(
      manager,
      `UPDATE gateway.agreement_amendment_parties SET vote = $3, outcome = $4, receipt_jws = $5, counter_proposal = $6::jsonb, decided_at = $7
       WHERE amendment_id = $1 AND party_id = $2 AND outcome IS NULL RETURNING party_id`,
      [
        amendmentId,
        partyId,
        vote,
        outcome.outcome,
        outcome.receiptJws,
        outcome.counterProposal === null ? null : JSON.stringify(outcome.counterProposal),
        outcome.decidedAt,
      ],
    );
    return rows.length > 0;
  }

  async amendmentTally(manager: EntityManager, amendmentId: string): Promise<AgreementTally> {
    const rows: Array<{ vote: Vote; outcome: SigningOutcome; count: string }> = await manager.query(
      `SELECT vote, outcome, count(*) AS count FROM gateway.agreement_amendment_parties WHERE amendment_id = $1 AND vote IS NOT NULL GROUP BY vote, outcome`,
      [amendmentId],
    );
    const tally: AgreementTally = { yes: 0, no: 0, counter: 0, expired: 0 };
    for (const row of rows) {
      tally[row.vote] += Number(row.count);
      if (row.outcome === 'expired') tally.expired += Number(row.count);
    }
    return tally;
  }

  async setAmendmentStatus(
    manager: EntityManager,
    id: string,
    status: AmendmentStatus,
    decidedAt: Date | null,
    at: Date,
  ): Promise<Amendment> {
    const rows = await queryRows<AmendmentRow>(
      manager,
      `UPDATE gateway.agreement_amendments SET status = $2, decided_at = COALESCE($3, decided_at), updated_at = $4 WHERE id = $1 RETURNING *`,
      [id, status, decidedAt, at],
    );
    return toAmendment(rows[0]!);
  }

  /** The agreement's document in force becomes an adopted amendment's. */
  async setCurrentDocument(manager: EntityManager, agreementId: string, sha256: string, at: Date): Promise<void> {
    await manager.query(`UPDATE gateway.agreements SET current_document_sha256 = $2, updated_at = $3 WHERE id = $1`, [
      agreementId,
      sha256,
      at,
    ]);
  }
}
