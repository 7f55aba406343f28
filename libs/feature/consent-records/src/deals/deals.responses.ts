import { Nullable } from '@svc/server';
import { Type } from 'class-transformer';
import { IsArray, IsBoolean, IsIn, IsInt, IsObject, IsString, ValidateNested } from 'class-validator';
import { DEAL_STATES, type DealState } from './deal';

export class PriceResponse {
  @IsString() amount!: string;
  @IsString() currency!: string;
}

export class RecipientResponse {
  @IsString() party_id!: string;
  @IsString() name!: string;
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
  @IsIn(['deal_not_accepted', 'deal_term_ended', 'consent_withdrawn', 'consent_expired', 'purpose_not_agreed', 'data_category_not_agreed', 'recipient_not_agreed'])
  @Nullable()
  reason_code!: string | null;
  @IsString() @Nullable() record_id!: string | null;
}
