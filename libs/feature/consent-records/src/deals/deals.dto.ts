import { Type } from 'class-transformer';
import { JSONSchema } from 'class-validator-jsonschema';
import {
  ArrayMaxSize,
  ArrayMinSize,
  ArrayUnique,
  IsArray,
  IsDefined,
  IsIn,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
  MinLength,
  ValidateNested,
} from 'class-validator';
import { DEROGATION_ARTICLES, LAWFUL_BASES } from '@svc/contracts';
import { IsIdOf, RoutedBy } from '@svc/ids';
import { Nullable } from '@svc/server';
import { ISO_DURATION } from '../flows/flow';
import { SubjectInput } from '../records/records.dto';
import { IsPublicEncryptionJwk } from './recipient-key';

const KEY = /^[a-z][a-z0-9_]{0,63}$/;

/** A price of data use: a decimal amount and an ISO 4217 currency. */
export class PriceInput {
  @IsDefined()
  @IsString()
  @Matches(/^(0|[1-9]\d{0,11})(\.\d{1,2})?$/, { message: 'amount must be a decimal such as 12.50' })
  amount!: string;

  @IsDefined()
  @IsString()
  @Matches(/^[A-Z]{3}$/, { message: 'currency must be an ISO 4217 code such as EUR' })
  currency!: string;
}

/** A party the data goes to under the deal. */
export class RecipientInput {
  @IsDefined()
  @IsString()
  @Matches(/^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/, { message: 'party_id must be an identifier (letters, digits, . _ : -)' })
  party_id!: string;

  @IsDefined()
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  name!: string;

  /**
   * On a licence: the recipient's public key (JWK: EC P-256/P-384/P-521, OKP X25519 or RSA of 2048
   * bits or more; public members only) that secure transfers encrypt to. A recipient without one
   * receives no secure transfer.
   */
  @IsOptional()
  @IsObject()
  @IsPublicEncryptionJwk()
  @JSONSchema({
    examples: [
      {
        kty: 'EC',
        crv: 'P-256',
        x: '8yWGFJZvOknSLCpy6x_IQSN0mJg8q1asSSx-HbhPXek',
        y: 'lpRK7oJ3SNJxP0w_CAqgYS5T4syPwX8S5JGmECCsAVU',
        kid: 'lab-2026',
      },
    ],
  })
  public_jwk?: Record<string, unknown>;

  /** On a licence: ISO 3166-1 alpha-2 country the recipient receives data in; the region's country when absent. */
  @IsOptional()
  @IsString()
  @Matches(/^[A-Z]{2}$/, { message: 'country must be an ISO 3166-1 alpha-2 code' })
  @JSONSchema({ examples: ['FR'] })
  country?: string;
}

/** Terms of data use, every field optional (an offer's or a move's change of the terms it starts from). */
export class TermsChangeInput {
  @IsOptional()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(50)
  @ArrayUnique()
  @IsString({ each: true })
  @Matches(KEY, { each: true, message: 'purposes must be purpose keys' })
  purposes?: string[];

  @IsOptional()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(50)
  @ArrayUnique()
  @IsString({ each: true })
  @Matches(KEY, { each: true, message: 'data_categories must be lowercase identifiers' })
  data_categories?: string[];

  @IsOptional()
  @IsString()
  @Matches(ISO_DURATION, { message: 'duration must be an ISO 8601 duration such as P6M' })
  duration?: string;

  /** null: no price; absent: unchanged. */
  @IsOptional()
  @Nullable()
  @IsObject()
  @ValidateNested()
  @Type(() => PriceInput)
  price?: PriceInput | null;

  @IsOptional()
  @IsArray()
  @ArrayMaxSize(50)
  @IsObject({ each: true })
  @ValidateNested({ each: true })
  @Type(() => RecipientInput)
  recipients?: RecipientInput[];
}

/** Body of POST /api/v1/data_licenses: the most a party asks to use, under one of its flows. */
@RoutedBy('flow_id')
export class CreateLicenseBody {
  @IsDefined()
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  name!: string;

  /** An active flow of the application whose consent purposes the licence uses. */
  @IsDefined()
  @IsIdOf('flow')
  flow_id!: string;

  @IsDefined()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(50)
  @ArrayUnique()
  @IsString({ each: true })
  @Matches(KEY, { each: true, message: 'purposes must be purpose keys' })
  purposes!: string[];

  @IsDefined()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(50)
  @ArrayUnique()
  @IsString({ each: true })
  @Matches(KEY, { each: true, message: 'data_categories must be lowercase identifiers' })
  data_categories!: string[];

  @IsDefined()
  @IsString()
  @Matches(ISO_DURATION, { message: 'duration must be an ISO 8601 duration such as P1Y' })
  duration!: string;

  /** null or absent: no price. */
  @IsOptional()
  @Nullable()
  @IsObject()
  @ValidateNested()
  @Type(() => PriceInput)
  price?: PriceInput | null;

  @IsDefined()
  @IsArray()
  @ArrayMaxSize(50)
  @IsObject({ each: true })
  @ValidateNested({ each: true })
  @Type(() => RecipientInput)
  recipients!: RecipientInput[];

  /** How long an offer stays open for an answer after each move, ISO 8601; default P14D. */
  @IsOptional()
  @IsString()
  @Matches(ISO_DURATION, { message: 'offer_window must be an ISO 8601 duration such as P14D' })
  offer_window?: string;
}

/** Body of POST /api/v1/data_offers: a draft offer to one person under a licence. */
@RoutedBy('license_id')
export class CreateOfferBody {
  @IsDefined()
  @IsIdOf('data_license')
  license_id!: string;

  /** The person, as the application refers to them (email or external id). */
  @IsDefined()
  @IsObject()
  @ValidateNested()
  @Type(() => SubjectInput)
  subject!: SubjectInput;

  /** Terms narrower than the licence's; absent: the licence's terms. */
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => TermsChangeInput)
  terms?: TermsChangeInput;
}

/** Body of counter and revise: the changed terms. */
export class ChangeTermsBody {
  @IsDefined()
  @IsObject()
  @ValidateNested()
  @Type(() => TermsChangeInput)
  terms!: TermsChangeInput;

  @IsOptional()
  @IsString()
  @MaxLength(2000)
  note?: string;
}

/** Body of accept and decline: which side answers (the application relays the person's answer as `person`). */
export class AnswerBody {
  @IsDefined()
  @IsString()
  @IsIn(['person', 'application'])
  actor!: 'person' | 'application';

  @IsOptional()
  @IsString()
  @MaxLength(2000)
  note?: string;
}

/** Body of POST /api/v1/data_offers/:offer_id/use_checks: one intended use of the data. */
export class UseCheckBody {
  @IsDefined()
  @IsString()
  @Matches(KEY, { message: 'purpose must be a purpose key' })
  purpose!: string;

  @IsDefined()
  @IsString()
  @Matches(KEY, { message: 'data_category must be a lowercase identifier' })
  data_category!: string;

  /** The party the data would go to; absent: the application itself. */
  @IsOptional()
  @IsString()
  @MaxLength(128)
  recipient?: string;
}

/** Body of POST /api/v1/data_licenses/:license_id/transfers: send a person's data to a recipient of the licence. */
export class CreateDataTransferBody {
  /** The accepted offer (the person's deal) under this licence whose data is sent. */
  @IsDefined()
  @IsIdOf('data_offer')
  offer_id!: string;

  /** party_id of a recipient the accepted terms name and the licence gives a public key. */
  @IsDefined()
  @IsString()
  @Matches(/^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/, { message: 'recipient must be a party_id' })
  recipient!: string;

  @IsDefined()
  @IsString()
  @Matches(KEY, { message: 'purpose must be a purpose key' })
  purpose!: string;

  @IsDefined()
  @IsString()
  @Matches(KEY, { message: 'data_category must be a lowercase identifier' })
  data_category!: string;

  /** The person's data to send (JSON object, at most 64 KiB once serialised): encrypted to the recipient, never stored in clear. */
  @IsDefined()
  @IsObject()
  @JSONSchema({ examples: [{ usage_history: [{ day: '2026-09-30', minutes: 42 }] }] })
  data!: Record<string, unknown>;

  /** Required when the recipient's country is not the region's: the crossing's lawful basis, written to the transfer register first. */
  @IsOptional()
  @IsIn(LAWFUL_BASES)
  lawful_basis?: string;

  /** With lawful_basis `derogation`: the GDPR Art. 49 derogation relied on. */
  @IsOptional()
  @IsIn(DEROGATION_ARTICLES)
  derogation_article?: string;
}
