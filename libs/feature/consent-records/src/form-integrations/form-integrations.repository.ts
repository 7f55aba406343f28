import { Injectable } from '@nestjs/common';
import { queryRows } from '@svc/persistence';
import { DataSource, type EntityManager } from 'typeorm';
import type { FormIntegration, FormPlatform, PurposeMapping, SubjectMapping } from './form-integration';

interface IntegrationRow {
  id: string;
  application_id: string;
  platform: FormPlatform;
  flow_id: string;
  form_id: string | null;
  purposes: PurposeMapping[];
  subject: SubjectMapping;
  secret_enc: Buffer;
  created_at: Date;
}

/** What became of one platform response: the record it made, or the named refusal. */
export interface FormIntake {
  integrationId: string;
  responseToken: string;
  outcome: 'recorded' | 'refused';
  recordId: string | null;
  reasonCode: string | null;
  detail: Record<string, unknown> | null;
  receivedAt: Date;
}

interface IntakeRow {
  integration_id: string;
  response_token: string;
  outcome: 'recorded' | 'refused';
  record_id: string | null;
  reason_code: string | null;
  detail: Record<string, unknown> | null;
  received_at: Date;
}

function toIntegration(row: IntegrationRow): FormIntegration {
  return {
    id: row.id,
    applicationId: row.application_id,
    platform: row.platform,
    flowId: row.flow_id,
    formId: row.form_id,
    purposes: row.purposes,
    subject: row.subject,
    secretEnc: row.secret_enc,
    createdAt: row.created_at,
  };
}

function toIntake(row: IntakeRow): FormIntake {
  return {
    integrationId: row.integration_id,
    responseToken: row.response_token,
    outcome: row.outcome,
    recordId: row.record_id,
    reasonCode: row.reason_code,
    detail: row.detail,
    receivedAt: row.received_at,
  };
}

/** Queries of consent_records.form_integrations and form_intakes. */
@Injectable()
export class FormIntegrationsRepository {
  constructor(private readonly dataSource: DataSource) {}

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  async insert(integration: FormIntegration): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO consent_records.form_integrations (id, application_id, platform, flow_id, form_id, purposes, subject, secret_enc, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      [
        integration.id,
        integration.applicationId,
        integration.platform,
        integration.flowId,
        integration.formId,
        JSON.stringify(integration.purposes),
        JSON.stringify(integration.subject),
        integration.secretEnc,
        integration.createdAt,
      ],
    );
  }

  /** A live integration; `applicationId` undefined only for the intake, which is authenticated by the signature. */
  async find(id: string, applicationId?: string): Promise<FormIntegration | undefined> {
    const rows: IntegrationRow[] = await this.dataSource.query(
      `SELECT * FROM consent_records.form_integrations WHERE id = $1 AND deleted_at IS NULL AND ($2::text IS NULL OR application_id = $2)`,
      [id, applicationId ?? null],
    );
    return rows[0] ? toIntegration(rows[0]) : undefined;
  }

  /** Newest first, keyset-paged by (created_at, id). */
  async list(applicationId: string, limit: number, after?: { createdAt: Date; id: string }): Promise<FormIntegration[]> {
    const rows: IntegrationRow[] = await this.dataSource.query(
      `SELECT * FROM consent_records.form_integrations
       WHERE application_id = $1 AND deleted_at IS NULL AND ($2::timestamptz IS NULL OR (created_at, id) < ($2, $3))
       ORDER BY created_at DESC, id DESC LIMIT $4`,
      [applicationId, after?.createdAt ?? null, after?.id ?? '', limit],
    );
    return rows.map(toIntegration);
  }

  /** Stops intake for good (the platform then gets 404 and disables its webhook); intakes stay. */
  async softDelete(applicationId: string, id: string, at: Date): Promise<boolean> {
    const rows = await queryRows<{ id: string }>(
      this.dataSource.manager,
      `UPDATE consent_records.form_integrations SET deleted_at = $3 WHERE id = $1 AND application_id = $2 AND deleted_at IS NULL RETURNING id`,
      [id, applicationId, at],
    );
    return rows.length > 0;
  }

  async intake(integrationId: string, responseToken: string): Promise<FormIntake | undefined> {
    const rows: IntakeRow[] = await this.dataSource.query(
      `SELECT * FROM consent_records.form_intakes WHERE integration_id = $1 AND response_token = $2`,
      [integrationId, responseToken],
    );
    return rows[0] ? toIntake(rows[0]) : undefined;
  }

  /** In the record's transaction: the response made this record (a refusal seen before is replaced). */
  async saveRecorded(manager: EntityManager, integrationId: string, responseToken: string, recordId: string, at: Date): Promise<void> {
    await manager.query(
      `INSERT INTO consent_records.form_intakes (integration_id, response_token, outcome, record_id, received_at) VALUES ($1, $2, 'recorded', $3, $4)
       ON CONFLICT (integration_id, response_token) DO UPDATE SET outcome = 'recorded', record_id = EXCLUDED.record_id, reason_code = NULL, detail = NULL, received_at = EXCLUDED.received_at`,
      [integrationId, responseToken, recordId, at],
    );
  }

  /** The response was refused; never overwrites a response that was recorded. */
  async saveRefused(
    integrationId: string,
    responseToken: string,
    reasonCode: string,
    detail: Record<string, unknown>,
    at: Date,
  ): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO consent_records.form_intakes (integration_id, response_token, outcome, reason_code, detail, received_at) VALUES ($1, $2, 'refused', $3, $4, $5)
       ON CONFLICT (integration_id, response_token) DO UPDATE SET reason_code = EXCLUDED.reason_code, detail = EXCLUDED.detail, received_at = EXCLUDED.received_at
       WHERE form_intakes.outcome = 'refused'`,
      [integrationId, responseToken, reasonCode, JSON.stringify(detail), at],
    );
  }

  /** Newest first, keyset-paged by (received_at, response_token); `outcome` filters. */
  async intakes(
    integrationId: string,
    limit: number,
    after?: { receivedAt: Date; token: string },
    outcome?: 'recorded' | 'refused',
  ): Promise<FormIntake[]> {
    const rows: IntakeRow[] = await this.dataSource.query(
      `SELECT * FROM consent_records.form_intakes
       WHERE integration_id = $1 AND ($2::timestamptz IS NULL OR (received_at, response_token) < ($2, $3)) AND ($4::text IS NULL OR outcome = $4)
       ORDER BY received_at DESC, response_token DESC LIMIT $5`,
      [integrationId, after?.receivedAt ?? null, after?.token ?? '', outcome ?? null, limit],
    );
    return rows.map(toIntake);
  }
}
