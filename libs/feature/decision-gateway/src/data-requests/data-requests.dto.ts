import { Transform, Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsDefined,
  IsEmail,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
  ValidateNested,
} from 'class-validator';
import { IsIdOf } from '@svc/ids';
import { PageQuery } from '@svc/server';
import {
  DATA_REQUEST_KINDS,
  DATA_REQUEST_STATUSES,
  MAX_EXTENSION_DAYS,
  type DataRequestKind,
  type DataRequestStatus,
} from './data-request';

/** The person's corrected contact data (rectification): at least one member. */
export class RectificationInput {
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  display_name?: string;

  @IsOptional()
  @IsString()
  @MaxLength(254)
  @IsEmail({ allow_display_name: false, allow_ip_domain: false, require_tld: false })
  email?: string;
}

/** Body of POST /api/v1/data_requests. */
export class CreateDataRequestBody {
  @IsDefined()
  @IsIn(DATA_REQUEST_KINDS)
  kind!: DataRequestKind;

  /**
   * The person (`usr_…`): required with an API token (the application raises the request for a
   * person it linked a subject reference to); with the person's own access token it may only name
   * themself.
   */
  @IsOptional()
  @IsIdOf('person')
  person_id?: string;

  /** Objection and restriction: the purposes (flow purpose keys) whose processing must stop. */
  @IsOptional()
  @ArrayMinSize(1)
  @ArrayMaxSize(50)
  @IsString({ each: true })
  @Matches(/^[a-z0-9_]{1,64}$/, { each: true, message: 'each purpose must be a purpose key (a-z, 0-9, _; at most 64)' })
  purposes?: string[];

  /** Rectification: the corrected contact data. */
  @IsOptional()
  @ValidateNested()
  @Type(() => RectificationInput)
  rectification?: RectificationInput;
}

/** Body of POST /api/v1/data_requests/:id/extend. */
export class ExtendDataRequestBody {
  /** Why more time is needed (complexity, number of requests); told to the person. */
  @IsDefined()
  @IsString()
  @MinLength(1)
  @MaxLength(1000)
  reason!: string;

  /** Added to the current deadline: 1–60 days (GDPR Art. 12(3): two further months). */
  @IsDefined()
  @IsInt()
  @Min(1)
  @Max(MAX_EXTENSION_DAYS)
  days!: number;
}

/** Body of POST /api/v1/data_requests/:id/reject. */
export class RejectDataRequestBody {
  /** Why the request is refused (Art. 12(4)); told to the person. */
  @IsDefined()
  @IsString()
  @MinLength(1)
  @MaxLength(1000)
  reason!: string;
}

/** Query of GET /api/v1/data_requests. */
export class ListDataRequestsQuery extends PageQuery {
  @IsOptional()
  @IsIn(DATA_REQUEST_STATUSES)
  status?: DataRequestStatus;

  @IsOptional()
  @IsIn(DATA_REQUEST_KINDS)
  kind?: DataRequestKind;

  /** With an API token: one person's requests. */
  @IsOptional()
  @IsIdOf('person')
  person_id?: string;
}

/** Query of the export download link. */
export class ExportQuery {
  @IsDefined()
  @IsString()
  @Matches(/^[A-Za-z0-9_-]{43}$/, { message: 'token must be the token of a download link' })
  @Transform(({ value }: { value: unknown }) => value)
  token!: string;
}
