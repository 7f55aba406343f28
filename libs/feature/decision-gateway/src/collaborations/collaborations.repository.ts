import { Injectable } from '@nestjs/common';
import { queryRows } from '@svc/persistence';
import { DataSource, type EntityManager } from 'typeorm';
import type { AgreementStatus, SigningOutcome } from '../agreements/agreement';
import type { Collaboration, CollaborationMember, CollaborationRole, MemberStatus, PartyType } from './collaboration';

interface CollaborationRow {
  id: string;
  owner_application_id: string;
  name: string;
  created_at: Date;
  updated_at: Date;
}

interface MemberRow {
  collaboration_id: string;
  party_id: string;
  party_type: PartyType;
  role: CollaborationRole;
  status: MemberStatus;
  invited_by: string | null;
  created_at: Date;
  updated_at: Date;
}

/** An attached agreement with what its history shows. */
export interface AttachedAgreement {
  agreementId: string;
  title: string;
  status: AgreementStatus;
  attachedBy: string;
  attachedAt: Date;
  createdAt: Date;
  decidedAt: Date | null;
  answers: Array<{ role: string; outcome: SigningOutcome | null; decidedAt: Date | null }>;
}

export interface CollaborationEvent {
  seq: string;
  type: string;
  actor: string;
  subject: string | null;
  createdAt: Date;
}

const toCollaboration = (r: CollaborationRow): Collaboration => ({
  id: r.id,
  ownerApplicationId: r.owner_application_id,
  name: r.name,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

const toMember = (r: MemberRow): CollaborationMember => ({
  collaborationId: r.collaboration_id,
  partyId: r.party_id,
  partyType: r.party_type,
  role: r.role,
  status: r.status,
  invitedBy: r.invited_by,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

/** Queries of gateway.collaborations, collaboration_members, collaboration_agreements and collaboration_events. */
@Injectable()
export class CollaborationsRepository {
  constructor(private readonly dataSource: DataSource) {}

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  async insert(manager: EntityManager, c: Collaboration): Promise<void> {
    await manager.query(
      `INSERT INTO gateway.collaborations (id, owner_application_id, name, created_at, updated_at) VALUES ($1, $2, $3, $4, $4)`,
      [c.id, c.ownerApplicationId, c.name, c.createdAt],
    );
  }

  async touch(manager: EntityManager, id: string, at: Date): Promise<void> {
    await manager.query(`UPDATE gateway.collaborations SET updated_at = $2 WHERE id = $1`, [id, at]);
  }

  async find(id: string, options: { manager?: EntityManager; lock?: boolean } = {}): Promise<Collaboration | undefined> {
    const rows: CollaborationRow[] = await (options.manager ?? this.dataSource.manager).query(
      `SELECT * FROM gateway.collaborations WHERE id = $1 ${options.lock ? 'FOR UPDATE' : ''}`,
      [id],
    );
    return rows[0] ? toCollaboration(rows[0]) : undefined;
  }

  /** Inserts a member or invitation; false when the party already has a row (whatever its status). */
  async insertMember(manager: EntityManager, m: CollaborationMember): Promise<boolean> {
    const rows: unknown[] = await manager.query(
      `INSERT INTO gateway.collaboration_members (collaboration_id, party_id, party_type, role, status, invited_by, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $7) ON CONFLICT ON CONSTRAINT collaboration_members_pk DO NOTHING RETURNING party_id`,
      [m.collaborationId, m.partyId, m.partyType, m.role, m.status, m.invitedBy, m.createdAt],
    );
    return rows.length > 0;
  }

  /** A declined or revoked party invited again: the same row, invited anew. */
  async reinvite(manager: EntityManager, m: CollaborationMember): Promise<CollaborationMember> {
    const rows = await queryRows<MemberRow>(
      manager,
      `UPDATE gateway.collaboration_members SET role = $3, status = 'invited', invited_by = $4, updated_at = $5 WHERE collaboration_id = $1 AND party_id = $2 RETURNING *`,
      [m.collaborationId, m.partyId, m.role, m.invitedBy, m.updatedAt],
    );
    return toMember(rows[0]!);
  }

  async member(
    collaborationId: string,
    partyId: string,
    options: { manager?: EntityManager; lock?: boolean } = {},
  ): Promise<CollaborationMember | undefined> {
    const rows: MemberRow[] = await (options.manager ?? this.dataSource.manager).query(
      `SELECT * FROM gateway.collaboration_members WHERE collaboration_id = $1 AND party_id = $2 ${options.lock ? 'FOR UPDATE' : ''}`,
      [collaborationId, partyId],
    );
    return rows[0] ? toMember(rows[0]) : undefined;
  }

  async setMemberStatus(
    manager: EntityManager,
    collaborationId: string,
    partyId: string,
    status: MemberStatus,
    at: Date,
  ): Promise<CollaborationMember> {
    const rows = await queryRows<MemberRow>(
      manager,
      `UPDATE gateway.collaboration_members SET status = $3, updated_at = $4 WHERE collaboration_id = $1 AND party_id = $2 RETURNING *`,
      [collaborationId, partyId, status, at],
    );
    return toMember(rows[0]!);
  }

  /** The collaborations where the party is invited or accepted, oldest first, keyset after (created_at, id). */
  async listFor(
    partyId: string,
    status: MemberStatus | undefined,
    limit: number,
    after?: { createdAt: string; id: string },
  ): Promise<Array<{ collaboration: Collaboration; member: CollaborationMember }>> {
    const params: unknown[] = [partyId, limit, status ?? null];
    let keyset = '';
    if (after) {
      params.push(after.createdAt, after.id);
      keyset = ' AND (c.created_at, c.id) > ($4::timestamptz, $5)';
    }
    const rows: Array<
      CollaborationRow & {
        m_role: CollaborationRole;
        m_status: MemberStatus;
        m_party_type: PartyType;
        m_invited_by: string | null;
        m_created_at: Date;
        m_updated_at: Date;
      }
    > = await this.dataSource.query(
      `SELECT c.*, m.role AS m_role, m.status AS m_status, m.party_type AS m_party_type, m.invited_by AS m_invited_by, m.created_at AS m_created_at, m.updated_at AS m_updated_at
         FROM gateway.collaboration_members m JOIN gateway.collaborations c ON c.id = m.collaboration_id
         WHERE m.party_id = $1 AND m.status IN ('invited', 'accepted') AND ($3::text IS NULL OR m.status = $3)${keyset}
         ORDER BY c.created_at, c.id LIMIT $2`,
      params,
    );
    return rows.map((r) => ({
      collaboration: toCollaboration(r),
      member: toMember({
        collaboration_id: r.id,
        party_id: partyId,
        party_type: r.m_party_type,
        role: r.m_role,
        status: r.m_status,
        invited_by: r.m_invited_by,
        created_at: r.m_created_at,
        updated_at: r.m_updated_at,
      }),
    }));
  }

  /** A collaboration's members and invitations, oldest first, keyset after (created_at, party_id). */
  async members(
    collaborationId: string,
    status: MemberStatus | undefined,
    limit: number,
    after?: { createdAt: string; partyId: string },
  ): Promise<CollaborationMember[]> {
    const params: unknown[] = [collaborationId, limit, status ?? null];
    let keyset = '';
    if (after) {
      params.push(after.createdAt, after.partyId);
      keyset = ' AND (created_at, party_id) > ($4::timestamptz, $5)';
    }
    const rows: MemberRow[] = await this.dataSource.query(
      `SELECT * FROM gateway.collaboration_members WHERE collaboration_id = $1 AND ($3::text IS NULL OR status = $3)${keyset} ORDER BY created_at, party_id LIMIT $2`,
      params,
    );
    return rows.map(toMember);
  }

  /** Attaches an agreement; false when it is already attached. */
  async attach(manager: EntityManager, collaborationId: string, agreementId: string, attachedBy: string, at: Date): Promise<boolean> {
    const rows: unknown[] = await manager.query(
      `INSERT INTO gateway.collaboration_agreements (collaboration_id, agreement_id, attached_by, attached_at) VALUES ($1, $2, $3, $4)
       ON CONFLICT ON CONSTRAINT collaboration_agreements_pk DO NOTHING RETURNING agreement_id`,
      [collaborationId, agreementId, attachedBy, at],
    );
    return rows.length > 0;
  }

  /** The attached agreements, in attachment order, keyset after (attached_at, agreement_id), each with its signers' answers. */
  async agreements(
    collaborationId: string,
    limit: number,
    after?: { attachedAt: string; agreementId: string },
    only?: string,
  ): Promise<AttachedAgreement[]> {
    const params: unknown[] = [collaborationId, limit];
    let keyset = '';
    if (only !== undefined) {
      params.push(only);
      keyset = ' AND ca.agreement_id = $3';
    }
    if (after) {
      params.push(after.attachedAt, after.agreementId);
      keyset = ' AND (ca.attached_at, ca.agreement_id) > ($3::timestamptz, $4)';
    }
    const rows: Array<{
      agreement_id: string;
      title: string;
      status: AgreementStatus;
      attached_by: string;
      attached_at: Date;
      created_at: Date;
      decided_at: Date | null;
    }> = await this.dataSource.query(
      `SELECT ca.agreement_id, a.title, a.status, ca.attached_by, ca.attached_at, a.created_at, a.decided_at
       FROM gateway.collaboration_agreements ca JOIN gateway.agreements a ON a.id = ca.agreement_id
       WHERE ca.collaboration_id = $1${keyset} ORDER BY ca.attached_at, ca.agreement_id LIMIT $2`,
      params,
    );
    if (rows.length === 0) return [];
    const parties: Array<{ agreement_id: string; role: string; outcome: SigningOutcome | null; decided_at: Date | null }> =
      await this.dataSource.query(
        `SELECT agreement_id, role, outcome, decided_at FROM gateway.agreement_parties WHERE agreement_id = ANY($1::text[]) ORDER BY agreement_id, position`,
        [rows.map((r) => r.agreement_id)],
      );
    return rows.map((r) => ({
      agreementId: r.agreement_id,
      title: r.title,
      status: r.status,
      attachedBy: r.attached_by,
      attachedAt: r.attached_at,
      createdAt: r.created_at,
      decidedAt: r.decided_at,
      answers: parties
        .filter((p) => p.agreement_id === r.agreement_id)
        .map((p) => ({ role: p.role, outcome: p.outcome, decidedAt: p.decided_at })),
    }));
  }

  async applicationExists(id: string): Promise<boolean> {
    const rows: unknown[] = await this.dataSource.query(`SELECT 1 FROM gateway.applications WHERE id = $1`, [id]);
    return rows.length > 0;
  }

  /**
   * The application's own agreement, share-locked until the transaction ends (a vote or decision
   * on it, which writes into the histories of the collaborations holding it, waits for the
   * attachment, so no change falls between the history written at attachment and the next).
   */
  async agreementOf(
    applicationId: string,
    agreementId: string,
    manager: EntityManager,
  ): Promise<{ createdAt: Date; status: string; decidedAt: Date | null } | undefined> {
    const rows: Array<{ created_at: Date; status: string; decided_at: Date | null }> = await manager.query(
      `SELECT created_at, status, decided_at FROM gateway.agreements WHERE id = $1 AND application_id = $2 FOR SHARE`,
      [agreementId, applicationId],
    );
    return rows[0] ? { createdAt: rows[0].created_at, status: rows[0].status, decidedAt: rows[0].decided_at } : undefined;
  }

  /** The agreement's amendments so far: each proposal, its parties' votes and its outcome, with their times. */
  async amendmentHistory(manager: EntityManager, agreementId: string): Promise<Array<{ type: string; actor: string; at: Date }>> {
    const amendments: Array<{ id: string; status: string; created_at: Date; decided_at: Date | null }> = await manager.query(
      `SELECT id, status, created_at, decided_at FROM gateway.agreement_amendments WHERE agreement_id = $1 ORDER BY number`,
      [agreementId],
    );
    const votes: Array<{ party_id: string; outcome: string; decided_at: Date }> = await manager.query(
      `SELECT ap.party_id, ap.outcome, ap.decided_at FROM gateway.agreement_amendment_parties ap JOIN gateway.agreement_amendments a ON a.id = ap.amendment_id
       WHERE a.agreement_id = $1 AND ap.outcome IS NOT NULL ORDER BY ap.decided_at`,
      [agreementId],
    );
    const application: Array<{ application_id: string }> = await manager.query(
      `SELECT application_id FROM gateway.agreements WHERE id = $1`,
      [agreementId],
    );
    const owner = application[0]?.application_id ?? agreementId;
    return [
      ...amendments.map((a) => ({ type: 'agreement.amendment_proposed', actor: owner, at: a.created_at })),
      ...votes.map((v) => ({ type: `signature.${v.outcome}`, actor: v.party_id, at: v.decided_at })),
      ...amendments.flatMap((a) =>
        a.decided_at && a.status !== 'pending' && a.status !== 'partially_signed'
          ? [{ type: a.status === 'adopted' ? 'agreement.amended' : 'agreement.amendment_rejected', actor: agreementId, at: a.decided_at }]
          : [],
      ),
    ];
  }

  /** The outcomes the agreement's parties gave so far, in the order they answered. */
  async partyOutcomes(manager: EntityManager, agreementId: string): Promise<Array<{ partyId: string; outcome: string; decidedAt: Date }>> {
    const rows: Array<{ id: string; outcome: string; decided_at: Date }> = await manager.query(
      `SELECT id, outcome, decided_at FROM gateway.agreement_parties WHERE agreement_id = $1 AND outcome IS NOT NULL ORDER BY decided_at, position`,
      [agreementId],
    );
    return rows.map((r) => ({ partyId: r.id, outcome: r.outcome, decidedAt: r.decided_at }));
  }

  async addEvent(
    manager: EntityManager,
    collaborationId: string,
    type: string,
    actor: string,
    subject: string | null,
    at: Date,
  ): Promise<void> {
    await manager.query(
      `INSERT INTO gateway.collaboration_events (collaboration_id, type, actor, subject, created_at) VALUES ($1, $2, $3, $4, $5)`,
      [collaborationId, type, actor, subject, at],
    );
  }

  /** The collaboration's history, oldest first, keyset after seq. */
  async events(collaborationId: string, limit: number, afterSeq?: string): Promise<CollaborationEvent[]> {
    const rows: Array<{ seq: string; type: string; actor: string; subject: string | null; created_at: Date }> = await this.dataSource.query(
      // Ordered by the bigint column, not by the text alias (which would put '10' before '9').
      `SELECT e.seq::text AS seq, e.type, e.actor, e.subject, e.created_at FROM gateway.collaboration_events e
       WHERE e.collaboration_id = $1 AND ($3::bigint IS NULL OR e.seq > $3::bigint) ORDER BY e.seq LIMIT $2`,
      [collaborationId, limit, afterSeq ?? null],
    );
    return rows.map((r) => ({ seq: r.seq, type: r.type, actor: r.actor, subject: r.subject, createdAt: r.created_at }));
  }
}
