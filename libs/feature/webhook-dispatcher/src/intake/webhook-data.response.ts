import { Type } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, ValidateNested } from 'class-validator';

/** The subject as the organisation supplied it: only the members it gave. */
export class WebhookSubjectReference {
  @IsOptional() @IsString() email?: string;
  @IsOptional() @IsString() external_id?: string;
}

/** One purpose's outcome in a recorded consent. */
export class WebhookPurposeOutcome {
  @IsString() purpose!: string;
  @IsIn(['granted', 'denied']) decision!: string;
}

/** `data` of `consent.granted` / `consent.denied` when the consent was recorded through the API or a capture (not a decision session). */
export class ConsentRecordWebhookData {
  @IsString() record_id!: unknown;
  @IsString() flow_id!: unknown;
  @IsInt() flow_version!: unknown;
  @ValidateNested() @Type(() => WebhookSubjectReference) subject!: WebhookSubjectReference;
  @ValidateNested({ each: true }) @Type(() => WebhookPurposeOutcome) purposes!: WebhookPurposeOutcome[];
  @IsString() collection_channel!: unknown;
  @IsString() captured_at!: unknown;
  @IsString() recorded_at!: unknown;
  @IsOptional() @IsString() previous_record_id?: unknown;
  @IsOptional() @IsString({ each: true }) withdrawn_purposes?: string[];
}

/** `data` of `consent.revoked` when a recorded consent was withdrawn (not a decision session's revocation). */
export class ConsentRecordRevokedWebhookData {
  @IsString() record_id!: unknown;
  @IsString() flow_id!: unknown;
  @IsInt() flow_version!: unknown;
  @ValidateNested() @Type(() => WebhookSubjectReference) subject!: WebhookSubjectReference;
  /** The purposes granted until the withdrawal. */
  @IsString({ each: true }) purposes!: string[];
  @IsString() channel!: unknown;
  @IsString() revoked_at!: unknown;
}

/** `data` of `webhook.test`, sent by "send a test delivery". */
export class TestWebhookData {
  @IsString() subscription_id!: string;
  @IsString() message!: string;
}
