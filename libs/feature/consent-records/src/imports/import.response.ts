import { Nullable } from '@svc/server';
import { Type } from 'class-transformer';
import { Allow, IsBoolean, IsIn, IsInt, IsObject, IsString, ValidateNested } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { IMPORT_STATUSES, type ConsentImport, type ImportRow, type ImportStatus } from './import';

/** One row's outcome in an import (null while pending). */
export class ImportRowOutcomeResponse {
  @IsInt() index!: number;
  @IsIn(['created', 'duplicate', 'failed']) @Nullable() outcome!: string | null;
  @IsString() @Nullable() record_id!: string | null;
  @IsString() @Nullable() reason_code!: string | null;
  @IsObject() @Nullable() detail!: object | null;
}

/** A cursor page of an import's row outcomes (query `limit`, `cursor`, `outcome`). */
export class ImportRowsPageResponse {
  @ValidateNested({ each: true }) @Type(() => ImportRowOutcomeResponse) data!: ImportRowOutcomeResponse[];
  @IsBoolean() has_more!: boolean;
  @IsString() @Nullable() next_cursor!: string | null;
}

/** The wire shape of `importView` (`consent_import`), published in the OpenAPI document. */
export class ConsentImportResponse {
  @IsString() id!: string;
  @IsIn(['consent_import']) object!: 'consent_import';
  @IsString() application_id!: string;
  @IsString() flow_id!: string;
  @IsBoolean() dry_run!: boolean;
  @IsIn([...IMPORT_STATUSES]) status!: ImportStatus;
  /** `{total, processed, pending, created, duplicates, failed}`. */
  @IsObject() counts!: Record<string, number>;
  @IsString() created_at!: string;
  @IsString() @Nullable() started_at!: string | null;
  @IsString() @Nullable() completed_at!: string | null;
  /** A page of per-row outcomes. */
  @ValidateNested() @Type(() => ImportRowsPageResponse) rows!: ImportRowsPageResponse;
}

/** One row of a dry run: what importing it would do. */
export class DryRunRowResponse {
  @IsInt() index!: number;
  @IsIn(['would_create', 'duplicate', 'failed']) outcome!: string;
  @IsString() @Nullable() record_id!: string | null;
  @IsString() @Nullable() reason_code!: string | null;
  @IsObject() @Nullable() detail!: object | null;
}

/** 200 of POST /api/v1/consent_records/imports with `dry_run: true`: the per-row report, nothing written. */
export class ConsentImportDryRunResponse {
  /** A dry run creates no import. */
  @Allow() @JSONSchema({ type: 'null' }) id!: null;
  @IsIn(['consent_import']) object!: 'consent_import';
  @IsString() application_id!: string;
  @IsString() flow_id!: string;
  @IsIn([true]) dry_run!: true;
  @IsIn(['completed']) status!: 'completed';
  /** `{total, would_create, duplicates, failed}`. */
  @IsObject() counts!: Record<string, number>;
  @ValidateNested({ each: true }) @Type(() => DryRunRowResponse) rows!: DryRunRowResponse[];
}

/** Wire shape `consent_import` (without rows). */
export function importView(job: ConsentImport): Record<string, unknown> {
  return {
    id: job.id,
    object: 'consent_import',
    application_id: job.applicationId,
    flow_id: job.flowId,
    dry_run: false,
    status: job.status,
    counts: {
      total: job.total,
      processed: job.processed,
      pending: job.total - job.processed,
      created: job.created,
      duplicates: job.duplicates,
      failed: job.failed,
    },
    created_at: job.createdAt.toISOString(),
    started_at: job.startedAt?.toISOString() ?? null,
    completed_at: job.completedAt?.toISOString() ?? null,
  } satisfies Omit<ConsentImportResponse, 'rows'>;
}

/** Wire shape of a row outcome (`outcome` null while pending). */
export function importRowView(row: ImportRow): Record<string, unknown> {
  return { index: row.index, outcome: row.outcome, record_id: row.recordId, reason_code: row.reasonCode, detail: row.detail };
}
