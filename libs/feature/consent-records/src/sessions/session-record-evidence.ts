import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';

/**
 * How the server bound the person of a decision session (decision-gateway's `principal_binding`).
 * Only these produce a consent record: `unbound` (and an empty value from an older producer) is
 * nobody's consent.
 */
export const SESSION_PRINCIPAL_BINDINGS = ['api_token', 'principal_assertion', 'hosted_sign_in'] as const;
export type SessionPrincipalBinding = (typeof SESSION_PRINCIPAL_BINDINGS)[number];

export function isBoundPrincipal(binding: string): binding is SessionPrincipalBinding {
  return (SESSION_PRINCIPAL_BINDINGS as readonly string[]).includes(binding);
}

/** What a session record's evidence says (the record view's `evidence`). */
export interface SessionRecordEvidence {
  principal_binding: SessionPrincipalBinding;
}

/** consent_records.session_record_evidence: written once with the session's record. */
@Injectable()
export class SessionRecordEvidenceRepository {
  constructor(private readonly dataSource: DataSource) {}

  async insert(manager: EntityManager, recordId: string, binding: SessionPrincipalBinding): Promise<void> {
    await manager.query(
      `INSERT INTO consent_records.session_record_evidence (record_id, principal_binding) VALUES ($1, $2) ON CONFLICT (record_id) DO NOTHING`,
      [recordId, binding],
    );
  }

  async find(recordId: string): Promise<SessionRecordEvidence | null> {
    const rows: Array<{ principal_binding: SessionPrincipalBinding }> = await this.dataSource.query(
      `SELECT principal_binding FROM consent_records.session_record_evidence WHERE record_id = $1`,
      [recordId],
    );
    return rows[0] ? { principal_binding: rows[0].principal_binding } : null;
  }
}
