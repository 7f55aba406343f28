import { Injectable } from '@nestjs/common';
import { queryRows } from '@svc/persistence';
import { DataSource, type EntityManager } from 'typeorm';
import type { AudienceCounts, SuppressedCounts } from './suppression';

export type CleanRoomStatus = 'proposed' | 'active' | 'declined';

/** A clean room between two applications of the region. */
export interface CleanRoom {
  readonly seq: number;
  readonly id: string;
  readonly name: string;
  readonly initiatorApplicationId: string;
  readonly partnerApplicationId: string;
  readonly initiatorPurpose: string;
  readonly partnerPurpose: string | null;
  readonly minCohortSize: number;
  readonly status: CleanRoomStatus;
  readonly auditEntryIds: string[];
  readonly createdAt: Date;
  readonly decidedAt: Date | null;
}

export interface CleanRoomComparison {
  readonly seq: number;
  readonly cleanRoomId: string;
  readonly requestedBy: string;
  readonly counts: SuppressedCounts;
  readonly suppressed: string[];
  readonly auditEntryId: string;
  readonly computedAt: Date;
}

interface RoomRow {
  seq: string;
  id: string;
  name: string;
  initiator_application_id: string;
  partner_application_id: string;
  initiator_purpose: string;
  partner_purpose: string | null;
  min_cohort_size: number;
  status: CleanRoomStatus;
  audit_entry_ids: string[];
  created_at: Date;
  decided_at: Date | null;
}

const toRoom = (row: RoomRow): CleanRoom => ({
  seq: Number(row.seq),
  id: row.id,
  name: row.name,
  initiatorApplicationId: row.initiator_application_id,
  partnerApplicationId: row.partner_application_id,
  initiatorPurpose: row.initiator_purpose,
  partnerPurpose: row.partner_purpose,
  minCohortSize: row.min_cohort_size,
  status: row.status,
  auditEntryIds: row.audit_entry_ids,
  createdAt: row.created_at,
  decidedAt: row.decided_at,
});

/**
 * People of an application whose current consent covers a purpose, by email (case-insensitive):
 * a current record (record head) granting the purpose, not expired, not withdrawn wholly or for
 * that purpose. External ids are each application's own, so only emails can meet across two.
 */
const CONSENTED = (application: string, purpose: string, now: string) => `
  SELECT DISTINCT lower(r.subject_email) AS who
  FROM consent_records.record_heads h JOIN consent_records.records r ON r.id = h.record_id
  WHERE h.application_id = ${application} AND r.subject_email IS NOT NULL
    AND r.decisions -> ${purpose}::text ->> 'decision' = 'granted'
    AND (r.expires_at IS NULL OR r.expires_at > ${now})
    AND NOT EXISTS (SELECT 1 FROM consent_records.withdrawals w WHERE w.record_id = r.id AND (w.purpose IS NULL OR w.purpose = ${purpose}::text))`;

/** Queries of consent_records.clean_rooms and clean_room_comparisons. */
@Injectable()
export class CleanRoomsRepository {
  constructor(private readonly dataSource: DataSource) {}

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  async insert(room: Omit<CleanRoom, 'seq' | 'partnerPurpose' | 'decidedAt' | 'status'>): Promise<CleanRoom> {
    const rows = await queryRows<RoomRow>(
      this.dataSource.manager,
      `INSERT INTO consent_records.clean_rooms (id, name, initiator_application_id, partner_application_id, initiator_purpose, min_cohort_size, status, audit_entry_ids, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, 'proposed', $7, $8) RETURNING *`,
      [
        room.id,
        room.name,
        room.initiatorApplicationId,
        room.partnerApplicationId,
        room.initiatorPurpose,
        room.minCohortSize,
        JSON.stringify(room.auditEntryIds),
        room.createdAt,
      ],
    );
    return toRoom(rows[0]!);
  }

  /** A room the application is a party of (either side); another's answers undefined. */
  async find(
    applicationId: string,
    id: string,
    manager: EntityManager = this.dataSource.manager,
    lock = false,
  ): Promise<CleanRoom | undefined> {
    const rows = await queryRows<RoomRow>(
      manager,
      `SELECT * FROM consent_records.clean_rooms WHERE id = $1 AND (initiator_application_id = $2 OR partner_application_id = $2)${lock ? ' FOR UPDATE' : ''}`,
      [id, applicationId],
    );
    return rows[0] ? toRoom(rows[0]) : undefined;
  }

  async decide(
    manager: EntityManager,
    id: string,
    status: CleanRoomStatus,
    partnerPurpose: string | null,
    auditEntryId: string,
    at: Date,
  ): Promise<CleanRoom> {
    const rows = await queryRows<RoomRow>(
      manager,
      `UPDATE consent_records.clean_rooms SET status = $2, partner_purpose = $3, audit_entry_ids = audit_entry_ids || $4::jsonb, decided_at = $5 WHERE id = $1 RETURNING *`,
      [id, status, partnerPurpose, JSON.stringify([auditEntryId]), at],
    );
    return toRoom(rows[0]!);
  }

  async list(applicationId: string, status: CleanRoomStatus | undefined, limit: number, afterSeq: number): Promise<CleanRoom[]> {
    const rows = await queryRows<RoomRow>(
      this.dataSource.manager,
      `SELECT * FROM consent_records.clean_rooms WHERE (initiator_application_id = $1 OR partner_application_id = $1) AND seq > $2 AND ($3::text IS NULL OR status = $3) ORDER BY seq LIMIT $4`,
      [applicationId, afterSeq, status ?? null, limit],
    );
    return rows.map(toRoom);
  }

  /** Whether the purpose is a consent purpose of an active version of one of the application's flows. */
  async isConsentPurpose(applicationId: string, purpose: string): Promise<boolean> {
    const rows = await queryRows<{ found: boolean }>(
      this.dataSource.manager,
      `SELECT EXISTS (
         SELECT 1 FROM consent_records.flow_versions v JOIN consent_records.flows f ON f.id = v.flow_id
         WHERE f.application_id = $1 AND v.status = 'active'
           AND EXISTS (SELECT 1 FROM jsonb_array_elements(v.terms -> 'purposes') p WHERE p ->> 'key' = $2 AND p ->> 'mechanism' = 'consent')
       ) AS found`,
      [applicationId, purpose],
    );
    return rows[0]?.found === true;
  }

  /** The three counts, computed in one statement: no row of either audience leaves Postgres. */
  async count(room: CleanRoom, now: Date): Promise<AudienceCounts> {
    const rows = await queryRows<{ a: string; b: string; overlap: string }>(
      this.dataSource.manager,
      `WITH a AS (${CONSENTED('$1', '$2', '$5')}), b AS (${CONSENTED('$3', '$4', '$5')})
       SELECT (SELECT count(*) FROM a) AS a, (SELECT count(*) FROM b) AS b, (SELECT count(*) FROM a JOIN b USING (who)) AS overlap`,
      [room.initiatorApplicationId, room.initiatorPurpose, room.partnerApplicationId, room.partnerPurpose, now],
    );
    const row = rows[0]!;
    return { initiator_audience: Number(row.a), partner_audience: Number(row.b), overlap: Number(row.overlap) };
  }

  async insertComparison(comparison: Omit<CleanRoomComparison, 'seq'>): Promise<CleanRoomComparison> {
    const rows = await queryRows<{ seq: string }>(
      this.dataSource.manager,
      `INSERT INTO consent_records.clean_room_comparisons (clean_room_id, requested_by, counts, suppressed, audit_entry_id, computed_at) VALUES ($1, $2, $3, $4, $5, $6) RETURNING seq`,
      [
        comparison.cleanRoomId,
        comparison.requestedBy,
        JSON.stringify(comparison.counts),
        comparison.suppressed,
        comparison.auditEntryId,
        comparison.computedAt,
      ],
    );
    return { ...comparison, seq: Number(rows[0]!.seq) };
  }

  async comparisons(roomId: string, limit: number, afterSeq: number): Promise<CleanRoomComparison[]> {
    const rows = await queryRows<{
      seq: string;
      clean_room_id: string;
      requested_by: string;
      counts: SuppressedCounts;
      suppressed: string[];
      audit_entry_id: string;
      computed_at: Date;
    }>(
      this.dataSource.manager,
      `SELECT * FROM consent_records.clean_room_comparisons WHERE clean_room_id = $1 AND seq > $2 ORDER BY seq LIMIT $3`,
      [roomId, afterSeq, limit],
    );
    return rows.map((row) => ({
      seq: Number(row.seq),
      cleanRoomId: row.clean_room_id,
      requestedBy: row.requested_by,
      counts: row.counts,
      suppressed: row.suppressed,
      auditEntryId: row.audit_entry_id,
      computedAt: row.computed_at,
    }));
  }
}
