import { Injectable } from '@nestjs/common';
import { queryRows } from '@svc/persistence';
import { DataSource } from 'typeorm';
import type { PolicyEngine, PolicyEngineCredentialType } from './policy-engine';

interface PolicyEngineRow {
  application_id: string;
  base_url: string;
  attester_id: string;
  credential_type: PolicyEngineCredentialType;
  credential_header: string | null;
  credential_enc: Buffer | null;
  timeout_ms: number;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS =
  'application_id, base_url, attester_id, credential_type, credential_header, credential_enc, timeout_ms, created_at, updated_at';

function toEngine(row: PolicyEngineRow): PolicyEngine {
  return {
    applicationId: row.application_id,
    baseUrl: row.base_url,
    attesterId: row.attester_id,
    credentialType: row.credential_type,
    credentialHeader: row.credential_header,
    credentialEnc: row.credential_enc,
    timeoutMs: row.timeout_ms,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** One policy engine per application (schema `oversight`). */
@Injectable()
export class PolicyEnginesRepository {
  constructor(private readonly dataSource: DataSource) {}

  async find(applicationId: string): Promise<PolicyEngine | undefined> {
    const rows = await queryRows<PolicyEngineRow>(
      this.dataSource,
      `SELECT ${COLUMNS} FROM oversight.policy_engines WHERE application_id = $1`,
      [applicationId],
    );
    return rows[0] ? toEngine(rows[0]) : undefined;
  }

  /** Creates or replaces the application's engine; `created_at` survives a replacement. */
  async upsert(engine: Omit<PolicyEngine, 'createdAt' | 'updatedAt'>, now: Date): Promise<PolicyEngine> {
    const rows = await queryRows<PolicyEngineRow>(
      this.dataSource,
      `INSERT INTO oversight.policy_engines (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8)
       ON CONFLICT ON CONSTRAINT policy_engines_pkey DO UPDATE SET base_url = EXCLUDED.base_url, attester_id = EXCLUDED.attester_id,
         credential_type = EXCLUDED.credential_type, credential_header = EXCLUDED.credential_header, credential_enc = EXCLUDED.credential_enc,
         timeout_ms = EXCLUDED.timeout_ms, updated_at = EXCLUDED.updated_at
       RETURNING ${COLUMNS}`,
      [
        engine.applicationId,
        engine.baseUrl,
        engine.attesterId,
        engine.credentialType,
        engine.credentialHeader,
        engine.credentialEnc,
        engine.timeoutMs,
        now,
      ],
    );
    return toEngine(rows[0] as PolicyEngineRow);
  }

  /** Removes the engine; true when one existed. */
  async remove(applicationId: string): Promise<boolean> {
    const rows = await queryRows<{ application_id: string }>(
      this.dataSource,
      `DELETE FROM oversight.policy_engines WHERE application_id = $1 RETURNING application_id`,
      [applicationId],
    );
    return rows.length > 0;
  }
}
