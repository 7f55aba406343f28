import { ArrayMaxSize, ArrayMinSize, IsArray, IsBoolean, IsDefined, IsIn, IsObject, IsOptional, IsString } from 'class-validator';
import { IsIdOf } from '@svc/ids';
import { PageQuery } from '@svc/server';
import { RoutedBy } from '@svc/ids';

/** Rows per import request; more answer 413 payload_too_large (so does a body over the route's 64 MiB limit, see import-limits). */
export const MAX_IMPORT_ROWS = 100_000;

/**
 * Body of POST /api/v1/consent_records/imports. Rows are validated one by one while processing,
 * so one malformed row is reported as failed instead of refusing the whole import.
 */
@RoutedBy('flow_id')
export class CreateImportBody {
  @IsDefined()
  @IsIdOf('flow')
  flow_id!: string;

  @IsOptional()
  @IsBoolean()
  dry_run?: boolean;

  @IsDefined()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_IMPORT_ROWS)
  @IsObject({ each: true })
  records!: Array<Record<string, unknown>>;
}

/** Query of GET …/imports/:id: row pages, optionally only rows with one outcome. */
export class ImportRowsQuery extends PageQuery {
  @IsOptional()
  @IsString()
  @IsIn(['created', 'duplicate', 'failed', 'pending'])
  outcome?: 'created' | 'duplicate' | 'failed' | 'pending';
}
