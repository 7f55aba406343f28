import { Transform, Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsDefined,
  IsIn,
  IsInt,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
  ValidateNested,
} from 'class-validator';
import { CrossBorder, IsIdOf } from '@svc/ids';
import { PageQuery } from '@svc/server';
import { MAX_TTL_SECONDS, MIN_TTL_SECONDS } from '../decisions/decision';
import { QuorumInput } from '../decisions/decisions.dto';
import { AGREEMENT_STATUSES, DOCUMENT_MEDIA_TYPES, type AgreementStatus } from './agreement';

/** The document of an agreement: its bytes, stored once under their SHA-256. */
export class AgreementDocumentInput {
  /** text/plain, text/markdown, application/pdf or application/json; text documents are shown on the signing page. */
  @IsDefined()
  @IsString()
  @IsIn(DOCUMENT_MEDIA_TYPES)
  media_type!: string;

  /** The document's bytes, standard base64 (at most 512 KiB decoded). */
  @IsDefined()
  @IsString()
  @MinLength(1)
  @MaxLength(700_000)
  @Matches(/^[A-Za-z0-9+/]+={0,2}$/, { message: 'content_base64 must be standard base64' })
  content_base64!: string;
}

/** One signer of an agreement. */
export class AgreementPartyInput {
  /** The signer, a person (`usr_<region>_…`) of any region: a signer homed elsewhere signs in their home region. */
  @IsDefined()
  @IsIdOf('person')
  person_id!: string;

  /** The party's role in the agreement, e.g. `buyer`, `seller`, `witness`. */
  @IsDefined()
  @IsString()
  @Matches(/^[a-z][a-z0-9_]{0,39}$/, { message: 'role must be 1 to 40 lowercase letters, digits or underscores, starting with a letter' })
  role!: string;
}

/**
 * Body of POST /api/v1/agreements and POST /api/v1/multi_party_agreements. Its parties may be
 * people of other regions (each signs in their home region), so the body is not homed by them.
 */
@CrossBorder()
export class CreateAgreementBody {
  @IsDefined()
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  title!: string;

  @IsDefined()
  @IsObject()
  @ValidateNested()
  @Type(() => AgreementDocumentInput)
  document!: AgreementDocumentInput;

  /** The signers, 1 to 50 (2 to 50 for a multi-party agreement), each with a role. */
  @IsDefined()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(50)
  @ValidateNested({ each: true })
  @Type(() => AgreementPartyInput)
  parties!: AgreementPartyInput[];

  /** Signatures needed to bind: `all` (default), `majority` (more than half) or `threshold` (the count given). */
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => QuorumInput)
  quorum?: QuorumInput;

  /** Seconds each signer has (30 s to 30 days); default 7 days. */
  @IsOptional()
  @IsInt()
  @Min(MIN_TTL_SECONDS)
  @Max(MAX_TTL_SECONDS)
  ttl_seconds?: number;
}

/** Body of POST /api/v1/agreements/:agreement_id/amendments: the new document the parties vote on. */
export class ProposeAmendmentBody {
  @IsDefined()
  @IsObject()
  @ValidateNested()
  @Type(() => AgreementDocumentInput)
  document!: AgreementDocumentInput;

  /** Seconds each party has to vote (30 s to 30 days); default 7 days. */
  @IsOptional()
  @IsInt()
  @Min(MIN_TTL_SECONDS)
  @Max(MAX_TTL_SECONDS)
  ttl_seconds?: number;
}

/** Path parameter of an agreement. */
export class AgreementIdParam {
  @IsDefined()
  @IsIdOf('agreement')
  agreement_id!: string;
}

/** Query of the agreement lists: a page, optionally of one status. */
export class ListAgreementsQuery extends PageQuery {
  /** pending, partially_signed, active, declined, expired or withdrawn. */
  @IsOptional()
  @Transform(({ value }: { value: unknown }) => value)
  @IsIn(AGREEMENT_STATUSES)
  status?: AgreementStatus;
}
