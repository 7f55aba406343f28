import { Type } from 'class-transformer';
import {
  IsDefined,
  IsEmail,
  IsIn,
  IsISO8601,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
  MinLength,
  ValidateNested,
} from 'class-validator';
import { IsIdOf } from '@svc/ids';
import { API_WITHDRAWAL_CHANNELS } from './record';
import { RoutedBy } from '@svc/ids';

/** The person a record is about: at least one of `email` and `external_id` (checked in the domain). */
export class SubjectInput {
  @IsOptional()
  @IsString()
  @MaxLength(320)
  @IsEmail()
  email?: string;

  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  external_id?: string;
}

/** Fields of one consent record, shared by the Record API body and an import row. */
export class RecordFields {
  @IsDefined()
  @IsObject()
  @ValidateNested()
  @Type(() => SubjectInput)
  subject!: SubjectInput;

  /** Keyed by purpose key; each `{decision, default_checked, mandatory}` (validated in the domain). */
  @IsDefined()
  @IsObject()
  decisions!: Record<string, unknown>;

  @IsDefined()
  @IsString()
  @IsISO8601({ strict: true })
  captured_at!: string;

  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(255)
  idempotency_key?: string;

  /** Digest of the notice text the person was shown, e.g. `sha256:<hex>`. */
  @IsOptional()
  @IsString()
  @MaxLength(200)
  @Matches(/^[A-Za-z0-9:_+/=.-]+$/)
  notice_digest?: string;
}

/** Body of POST /api/v1/consent_records (Record API). */
@RoutedBy('flow_id')
export class RecordConsentBody extends RecordFields {
  @IsDefined()
  @IsIdOf('flow')
  flow_id!: string;
}

/** Body of POST /api/v1/consent_records/:record_id/withdrawals. */
export class WithdrawConsentBody {
  /** A purpose key withdraws that purpose only; absent withdraws the whole consent. */
  @IsOptional()
  @IsString()
  @MaxLength(64)
  purpose?: string;

  /** Where the withdrawal was made; default `organisation`. */
  @IsOptional()
  @IsString()
  @IsIn(API_WITHDRAWAL_CHANNELS)
  channel?: (typeof API_WITHDRAWAL_CHANNELS)[number];
}
