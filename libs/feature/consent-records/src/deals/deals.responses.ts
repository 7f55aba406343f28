import { Nullable } from '@svc/server';
import { Type } from 'class-transformer';
import { IsArray, IsBoolean, IsIn, IsInt, IsObject, IsOptional, IsString, ValidateNested } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { DEAL_STATES, type DealState } from './deal';

export class PriceResponse {
  @IsString() amount!: string;
  @IsString() currency!: string;
}

export class RecipientResponse {
  @IsString() party_id!: string;
  @IsString() name!: string;
  @IsOptional()
  @IsObject()
  @JSONSchema({
    description: 'Licence only: the public JWK secure transfers to this recipient are encrypted to.',
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
  @IsOptional()
  @IsString()
  @JSONSchema({ description: 'Licence only: ISO 3166-1 alpha-2 country the recipient receives data in.', examples: ['FR'] })
  country?: string;
}

/** Terms of data use as answered. */
export class DealTermsResponse {
  @IsArray() @IsString({ each: true }) purposes!: string[];
  @IsArray() @IsString({ each: true }) data_categories!: string[];
  /** ISO 8601 duration from acceptance. */
  @IsString() duration!: string;
  @IsObject() @ValidateNested() @Type(() => PriceResponse) @Nullable() price!: PriceResponse | null;
  @IsArray() @ValidateNested({ each: true }) @Type(() => RecipientResponse) recipients!: RecipientResponse[];
}

/** `data_license`. */
export class DataLicenseResponse {
  @IsString() id!: string;
  @IsIn(['data_license']) object!: 'data_license';
  @IsString() application_id!: string;
  @IsString() name!: string;
  @IsString() flow_id!: string;
  @IsObject() @ValidateNested() @Type(() => DealTermsResponse) terms!: DealTermsResponse;
  @IsString() offer_window!: string;
  @IsString() created_at!: string;
}

export class SubjectResponse {
  @IsString() @Nullable() email!: string | null;
  @IsString() @Nullable() external_id!: string | null;
}

/** One move of an offer's history. */
export class DealMoveResponse {
  @IsInt() seq!: number;
  @IsIn(['create', 'send', 'counter', 'revise', 'accept', 'decline', 'expire']) move!: string;
  @IsIn(['application', 'person', 'platform']) actor!: string;
  @IsIn(DEAL_STATES) @Nullable() from!: DealState | null;
  @IsIn(DEAL_STATES) to!: DealState;
  /** The terms in force after the move. */
  @IsObject() @ValidateNested() @Type(() => DealTermsResponse) terms!: DealTermsResponse;
  @IsString() @Nullable() note!: string | null;
  @IsString() at!: string;
}

/** `data_offer` in a list: its state (an open offer past expires_at reads `expired`) and terms, without its history. */
export class DataOfferSummaryResponse {
  @IsString() id!: string;
  @IsIn(['data_offer']) object!: 'data_offer';
  @IsString() application_id!: string;
  @IsString() license_id!: string;
  @IsObject() @ValidateNested() @Type(() => SubjectResponse) subject!: SubjectResponse;
  @IsIn(DEAL_STATES) state!: DealState;
  @IsObject() @ValidateNested() @Type(() => DealTermsResponse) terms!: DealTermsResponse;
  @IsString() @Nullable() expires_at!: string | null;
  /** The consent record the acceptance wrote (its receipt: GET /api/v1/consent_receipts/:record_id). */
  @IsString() @Nullable() record_id!: string | null;
  @IsString() @Nullable() accepted_at!: string | null;
  @IsString() created_at!: string;
  @IsString() updated_at!: string;
}

/** `data_offer`: the summary and the offer's history, oldest move first. */
export class DataOfferResponse extends DataOfferSummaryResponse {
  @IsArray() @ValidateNested({ each: true }) @Type(() => DealMoveResponse) history!: DealMoveResponse[];
}

/** `data_use_check`: whether one use of the data is covered by the accepted deal. */
export class DataUseCheckResponse {
  @IsIn(['data_use_check']) object!: 'data_use_check';
  @IsString() offer_id!: string;
  @IsBoolean() allowed!: boolean;
  @IsIn([
    'deal_not_accepted',
    'deal_term_ended',
    'consent_withdrawn',
    'consent_expired',
    'purpose_not_agreed',
    'data_category_not_agreed',
    'recipient_not_agreed',
  ])
  @Nullable()
  reason_code!: string | null;
  @IsString() @Nullable() record_id!: string | null;
}

/** `data_transfer`: a person's data sent, encrypted, to a recipient of an accepted licence. */
export class DataTransferResponse {
  @IsString() @JSONSchema({ examples: ['dtx_us_abcdefghijklmnopqrst'] }) id!: string;
  @IsIn(['data_transfer']) object!: 'data_transfer';
  @IsString() application_id!: string;
  @IsString() license_id!: string;
  @IsString() offer_id!: string;
  @IsString() @JSONSchema({ description: 'The consent record of the accepted deal.' }) record_id!: string;
  @IsObject() @ValidateNested() @Type(() => RecipientResponse) recipient!: RecipientResponse;
  @IsString() purpose!: string;
  @IsString() data_category!: string;
  @IsObject()
  @JSONSchema({
    description:
      'How the data was encrypted: JWE `alg` (ECDH-ES+A256KW or RSA-OAEP-256), `enc` A256GCM, and the recipient key id (its `kid`, else its RFC 7638 thumbprint).',
  })
  encryption!: { alg: string; enc: string; kid: string };
  @IsString()
  @JSONSchema({ description: "The data as a compact JWE to the recipient's key; only the recipient can read it." })
  jwe!: string;
  @IsString() @JSONSchema({ description: 'SHA-256 (hex) of the data as sent (RFC 8785 canonical JSON).' }) data_sha256!: string;
  @IsString()
  @Nullable()
  @JSONSchema({ description: 'The transfer register entry (`xfr_…`) when the recipient is in another country; null otherwise.' })
  transfer_register_id!: string | null;
  @IsString()
  @JSONSchema({
    description:
      "The person's transfer receipt: a compact JWS (EdDSA, typ `svc-transfer-receipt+jws`) by the region key (`/.well-known/jwks.json`) over what was sent, to whom, when, under which deal and register entry.",
  })
  receipt!: string;
  @IsString() created_at!: string;
}
