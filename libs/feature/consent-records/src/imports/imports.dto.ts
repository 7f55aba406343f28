import { ArrayMaxSize, ArrayMinSize, IsArray, IsBoolean, IsDefined, IsIn, IsObject, IsOptional, IsString } from 'class-validator';
import { IsIdOf } from '@svc/ids';
import { PageQuery } from '@svc/server';
import { RoutedBy } from '@svc/ids';

/** Rows per import request; more answer 413 payload_too_large (so does a body over the route's 64 MiB limit, see import-limits). */
export const MAX_IMPORT_ROWS = 100_000;

/**
 * The members of a JSON import body besides its rows, validated once they have arrived (the rows
 * are checked one by one as they come, see import-body).
 */
@RoutedBy('flow_id')
export class ImportFields {
  @IsDefined()
  @IsIdOf('flow')
  flow_id!: string;

  @IsOptional()
  @IsBoolean()
  dry_run?: boolean;
}

/**
 * Body of POST /api/v1/consent_records/imports as the API document describes it. The body is read
 * as a stream (see import-body), never as one object: rows are validated one by one while
 * processing, so one malformed row is reported as failed instead of refusing the whole import.
 */
export class CreateImportBody extends ImportFields {
  @IsDefined()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_IMPORT_ROWS)
  @IsObject({ each: true })
  records!: Array<Record<string, unknown>>;
}

/**
 * Query of POST …/imports: with an `application/x-ndjson` body (one row per line) the flow and
 * the dry run are named here; with a JSON body they are members of the body and the query stays empty.
 */
@RoutedBy('flow_id')
export class ImportQuery {
  @IsOptional()
  @IsIdOf('flow')
  flow_id?: string;

  @IsOptional()
  @IsString()
  @IsIn(['true', 'false'])
  dry_run?: 'true' | 'false';
}

/** Query of GET …/imports/:id: row pages, optionally only rows with one outcome. */
export class ImportRowsQuery extends PageQuery {
  @IsOptional()
  @IsString()
  @IsIn(['created', 'duplicate', 'failed', 'pending'])
  outcome?: 'created' | 'duplicate' | 'failed' | 'pending';
}
