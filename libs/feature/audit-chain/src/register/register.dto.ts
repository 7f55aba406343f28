import { ArrayMaxSize, ArrayMinSize, IsArray, IsDefined, IsIn, IsOptional, IsString, Matches, MaxLength, MinLength } from 'class-validator';
import { PageQuery } from '@svc/server';
import { DATA_CATEGORIES, DEROGATION_ARTICLES, LAWFUL_BASES, TRANSFER_CASES } from '@svc/contracts';

const RFC3339 =
  /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])T([01]\d|2[0-3]):[0-5]\d:([0-5]\d|60)(\.\d{1,9})?(Z|[+-]([01]\d|2[0-3]):[0-5]\d)$/;
const COUNTRY = /^[A-Z]{2}$/;

/** Query of `GET /api/v1/transfer_register`: filters and cursor pagination. */
export class TransferRegisterQuery extends PageQuery {
  /** ISO 3166-1 alpha-2 destination. */
  @IsOptional() @IsString() @Matches(COUNTRY, { message: 'to_country must be an ISO 3166-1 alpha-2 code' }) to_country?: string;
  @IsOptional() @IsIn(DATA_CATEGORIES) data_category?: string;
  @IsOptional() @IsIn(LAWFUL_BASES) lawful_basis?: string;
  @IsOptional() @IsIn(TRANSFER_CASES) transfer_case?: string;
  /** Recorded at or after (RFC 3339). */
  @IsOptional() @IsString() @MaxLength(40) @Matches(RFC3339, { message: 'from must be an RFC 3339 date-time with offset' }) from?: string;
  /** Recorded before (RFC 3339). */
  @IsOptional() @IsString() @MaxLength(40) @Matches(RFC3339, { message: 'to must be an RFC 3339 date-time with offset' }) to?: string;
}

/**
 * Body of `POST /api/v1/transfer_register`: a crossing the application is about to make (e.g. its
 * support operator in another country opens a person's records), recorded before it happens.
 * `lawful_basis` is validated by the use case so that its absence answers 422 naming the field.
 */
export class RecordTransferBody {
  @IsDefined()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(DATA_CATEGORIES.length)
  @IsIn(DATA_CATEGORIES, { each: true })
  data_categories!: string[];
  @IsDefined() @IsString() @Matches(COUNTRY, { message: 'to_country must be an ISO 3166-1 alpha-2 code' }) to_country!: string;
  /** Organisation, service or team receiving the data; never a person's name. */
  @IsDefined() @IsString() @MinLength(1) @MaxLength(200) recipient!: string;
  @IsDefined() @IsString() @MinLength(1) @MaxLength(200) purpose!: string;
  @IsOptional() @IsString() @IsIn(LAWFUL_BASES) lawful_basis?: string;
  /** Required with `lawful_basis: derogation`: the GDPR article relied on. */
  @IsOptional() @IsString() @IsIn(DEROGATION_ARTICLES) derogation_article?: string;
  @IsDefined() @IsIn(TRANSFER_CASES) transfer_case!: string;
  /** The caller's reference of the crossing; the same reference records it once. */
  @IsDefined()
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  @Matches(/^[\x21-\x7e]+$/, { message: 'reference must be printable ASCII without spaces' })
  reference!: string;

  /** Receipts (record ids) whose data crosses: each receipt then lists the destination in its processing_locations. */
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(100)
  @IsString({ each: true })
  @Matches(/^[a-z]{2,8}_[a-z]{2,3}_[a-z2-7]{20,24}$/, { each: true, message: 'record_ids must hold receipt record ids' })
  record_ids?: string[];
}

/** Body of the evidence-package routes: the period covered (`from` inclusive, `to` exclusive, at most 366 days). */
export class EvidencePeriodBody {
  @IsDefined() @IsString() @MaxLength(40) @Matches(RFC3339, { message: 'from must be an RFC 3339 date-time with offset' }) from!: string;
  @IsDefined() @IsString() @MaxLength(40) @Matches(RFC3339, { message: 'to must be an RFC 3339 date-time with offset' }) to!: string;
}
