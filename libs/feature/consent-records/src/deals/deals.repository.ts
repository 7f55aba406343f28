import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import type { Subject } from '../records/record';
import type { DealActor, DealMove, DealState, DealTerms } from './deal';

/** A stored licence. */
export interface DataLicense {
  id: string;
  applicationId: string;
  name: string;
  flowId: string;
  terms: DealTerms;
  offerWindow: string;
  createdAt: Date;
}

/** A stored offer (its state as stored: see `effectiveState` for expiry). */
export interface DataOffer {
  id: string;
  applicationId: string;
  licenseId: string;
  subject: Subject;
  state: DealState;
  terms: DealTerms;
  expiresAt: Date | null;
  recordId: string | null;
  acceptedAt: Date | null;
  moves: number;
  createdAt: Date;
  updatedAt: Date;
}

/** One move of an offer's history. */
export interface DealMoveRow {
  seq: number;
  move: DealMove | 'expire' | 'create';
  actor: DealActor | 'platform';
  from: DealState | null;
  to: DealState;
  /** The terms in force after the move. */
  terms: DealTerms;
  note: string | null;
  at: Date;
}

interface LicenseRow {
  id: string;
  application_id: string;
  name: string;
  flow_id: string;
  terms: DealTerms;
  offer_window: string;
  created_at: Date;
}

interface OfferRow {
  id: string;
  application_id: string;
  license_id: string;
  subject_external_id: string | null;
  subject_email: string | null;
  state: DealState;
  terms: DealTerms;
  expires_at: Date | null;
  record_id: string | null;
  accepted_at: Date | null;
  moves: number;
  created_at: Date;
  updated_at: Date;
}

const toLicense = (r: LicenseRow): DataLicense => ({
  id: r.id,
  applicationId: r.application_id,
  name: r.name,
  flowId: r.flow_id,
  terms: r.terms,
  offerWindow: r.offer_window,
  createdAt: r.created_at,
});
const toOffer = (r: OfferRow): DataOffer => ({
  id: r.id,
  applicationId: r.application_id,
  licenseId: r.license_id,
  subject: { email: r.subject_email, external_id: r.subject_external_id },
  state: r.state,
  terms: r.terms,
  expiresAt: r.expires_at,
  recordId: r.record_id,
  acceptedAt: r.accepted_at,
  moves: r.moves,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

const OFFER_COLUMNS =
  'id, application_id, license_id, subject_external_id, subject_email, state, terms, expires_at, record_id, accepted_at, moves, created_at, updated_at';

/** Queries of data_licenses, data_offers and data_offer_moves; every read scoped by application. */
@Injectable()
export class DealsRepository {
  constructor(private readonly dataSource: DataSource) {}

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  manager(): EntityManager {
    return this.dataSource.manager;
  }

  async insertLicense(license: DataLicense): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO consent_records.data_licenses (id, application_id, name, flow_id, terms, offer_window, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [
        license.id,
        license.applicationId,
        license.name,
        license.flowId,
        JSON.stringify(license.terms),
        license.offerWindow,
        license.createdAt,
      ],
    );
  }

  async findLicense(applicationId: string, id: string, manager: EntityManager = this.dataSource.manager): Promise<DataLicense | undefined> {
    const rows: LicenseRow[] = await manager.query(`SELECT * FROM consent_records.data_licenses WHERE id = $1 AND application_id = $2`, [
      id,
      applicationId,
    ]);
    return rows[0] ? toLicense(rows[0]) : undefined;
  }

  async listLicenses(applicationId: string, limit: number, after?: { createdAt: string; id: string }): Promise<DataLicense[]> {
    const rows: LicenseRow[] = await this.dataSource.query(
      `SELECT * FROM consent_records.data_licenses WHERE application_id = $1 AND ($2::timestamptz IS NULL OR (created_at, id) > ($2::timestamptz, $3)) ORDER BY created_at, id LIMIT $4`,
      [applicationId, after?.createdAt ?? null, after?.id ?? '', limit],
    );
    return rows.map(toLicense);
  }

  async insertOffer(manager: EntityManager, offer: DataOffer): Promise<void> {
    await manager.query(
      `INSERT INTO consent_records.data_offers (${OFFER_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
      [
        offer.id,
        offer.applicationId,
        offer.licenseId,
        offer.subject.external_id,
        offer.subject.email,
        offer.state,
        JSON.stringify(offer.terms),
        offer.expiresAt,
        offer.recordId,
        offer.acceptedAt,
        offer.moves,
        offer.createdAt,
        offer.updatedAt,
      ],
    );
  }

  /** An application's offer; `lock` takes its row lock for a move. */
  async findOffer(
    applicationId: string,
    id: string,
    options: { manager?: EntityManager; lock?: boolean } = {},
  ): Promise<DataOffer | undefined> {
    const manager = options.manager ?? this.dataSource.manager;
    const rows: OfferRow[] = await manager.query(
      `SELECT ${OFFER_COLUMNS} FROM consent_records.data_offers WHERE id = $1 AND application_id = $2${options.lock ? ' FOR UPDATE' : ''}`,
      [id, applicationId],
    );
    return rows[0] ? toOffer(rows[0]) : undefined;
  }

  async listOffers(applicationId: string, limit: number, after?: { createdAt: string; id: string }): Promise<DataOffer[]> {
    const rows: OfferRow[] = await this.dataSource.query(
      `SELECT ${OFFER_COLUMNS} FROM consent_records.data_offers WHERE application_id = $1 AND ($2::timestamptz IS NULL OR (created_at, id) > ($2::timestamptz, $3)) ORDER BY created_at, id LIMIT $4`,
      [applicationId, after?.createdAt ?? null, after?.id ?? '', limit],
    );
    return rows.map(toOffer);
  }

  /** Writes the offer's new state and terms, and appends the move to its history. */
  async saveMove(manager: EntityManager, offer: DataOffer, move: DealMoveRow): Promise<void> {
    await manager.query(
      `UPDATE consent_records.data_offers SET state = $2, terms = $3, expires_at = $4, record_id = $5, accepted_at = $6, moves = $7, updated_at = $8 WHERE id = $1`,
      [offer.id, offer.state, JSON.stringify(offer.terms), offer.expiresAt, offer.recordId, offer.acceptedAt, move.seq, move.at],
    );
    await this.insertMove(manager, offer.id, move);
  }

  async insertMove(manager: EntityManager, offerId: string, move: DealMoveRow): Promise<void> {
    await manager.query(
      `INSERT INTO consent_records.data_offer_moves (offer_id, seq, move, actor, from_state, to_state, terms, note, at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      [offerId, move.seq, move.move, move.actor, move.from ?? '', move.to, JSON.stringify(move.terms), move.note, move.at],
    );
  }

  async movesOf(offerId: string): Promise<DealMoveRow[]> {
    const rows: Array<{
      seq: number;
      move: DealMoveRow['move'];
      actor: DealMoveRow['actor'];
      from_state: string;
      to_state: DealState;
      terms: DealTerms;
      note: string | null;
      at: Date;
    }> = await this.dataSource.query(
      `SELECT seq, move, actor, from_state, to_state, terms, note, at FROM consent_records.data_offer_moves WHERE offer_id = $1 ORDER BY seq`,
      [offerId],
    );
    return rows.map((r) => ({
      seq: r.seq,
      move: r.move,
      actor: r.actor,
      from: r.from_state === '' ? null : (r.from_state as DealState),
      to: r.to_state,
      terms: r.terms,
      note: r.note,
      at: r.at,
    }));
  }
}
