import { Nullable } from '@svc/server';
import { IsBoolean, IsIn, IsObject, IsString } from 'class-validator';
import { IMPORT_STATUSES, type ImportStatus } from './import';

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
  /** A page of per-row outcomes `{data: [{index, outcome, record_id, reason_code, detail}], has_more, next_cursor}`. */
  @IsObject() rows!: object;
}
