import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';

/** One person at one application, as the directory knows them. */
export interface DirectoryEntry {
  applicationId: string;
  subjectRef: string;
  homeRegion: string;
  homeCountry: string;
  initials: string;
  purposes: Array<{ purpose: string; status: string }>;
  activeCount: number;
  asOf: Date;
}

interface EntryRow {
  application_id: string;
  subject_ref: string;
  home_region: string;
  home_country: string;
  initials: string;
  purposes: Array<{ purpose: string; status: string }>;
  active_count: number;
  as_of: Date;
}

@Injectable()
export class DirectoryRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Keeps the newest status of the person (an older one arriving late changes nothing). */
  async upsert(manager: EntityManager, entry: DirectoryEntry, receivedAt: Date): Promise<void> {
    await manager.query(
      `INSERT INTO consent_records.directory_entries
         (application_id, subject_ref, home_region, home_country, initials, purposes, active_count, as_of, received_at)
       VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7, $8, $9)
       ON CONFLICT (application_id, subject_ref) DO UPDATE SET
         home_region = EXCLUDED.home_region, home_country = EXCLUDED.home_country, initials = EXCLUDED.initials,
         purposes = EXCLUDED.purposes, active_count = EXCLUDED.active_count, as_of = EXCLUDED.as_of, received_at = EXCLUDED.received_at
       WHERE consent_records.directory_entries.as_of <= EXCLUDED.as_of`,
      [
        entry.applicationId,
        entry.subjectRef,
        entry.homeRegion,
        entry.homeCountry,
        entry.initials,
        JSON.stringify(entry.purposes),
        entry.activeCount,
        entry.asOf,
        receivedAt,
      ],
    );
  }

  async find(applicationId: string, subjectRef: string): Promise<DirectoryEntry | undefined> {
    const rows: EntryRow[] = await this.dataSource.query(
      'SELECT * FROM consent_records.directory_entries WHERE application_id = $1 AND subject_ref = $2',
      [applicationId, subjectRef],
    );
    const row = rows[0];
    return row
      ? {
          applicationId: row.application_id,
          subjectRef: row.subject_ref,
          homeRegion: row.home_region,
          homeCountry: row.home_country,
          initials: row.initials,
          purposes: row.purposes,
          activeCount: row.active_count,
          asOf: row.as_of,
        }
      : undefined;
  }
}
