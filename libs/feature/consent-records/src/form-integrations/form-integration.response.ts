import { Nullable } from '@svc/server';
import { IsArray, IsIn, IsObject, IsOptional, IsString } from 'class-validator';

/** The wire shape of `formIntegrationView` (`form_integration`), published in the OpenAPI document. */
export class FormIntegrationResponse {
  @IsString() id!: string;
  @IsIn(['form_integration']) object!: 'form_integration';
  @IsString() application_id!: string;
  @IsString() platform!: string;
  @IsString() flow_id!: string;
  /** Null accepts deliveries of any form signed with the secret. */
  @IsString() @Nullable() form_id!: string | null;
  /** How the form's fields map to the flow's purposes. */
  @IsArray() purposes!: unknown[];
  /** How the form's answers identify the subject. */
  @IsObject() subject!: object;
  /** Where the platform sends its signed webhooks. */
  @IsString() webhook_url!: string;
  @IsString() created_at!: string;
  /** The signing secret: only in the answer of create. */
  @IsOptional() @IsString() signing_secret?: string;
}

/** `intakeView` (`form_intake`): one response delivered to a form integration, recorded or refused. */
export class FormIntakeResponse {
  @IsIn(['form_intake']) object!: 'form_intake';
  @IsString() response_token!: string;
  @IsIn(['recorded', 'refused']) outcome!: 'recorded' | 'refused';
  @IsString() @Nullable() record_id!: string | null;
  @IsString() @Nullable() reason_code!: string | null;
  @IsObject() @Nullable() detail!: Record<string, unknown> | null;
  @IsString() received_at!: string;
}

/** 200 of the form platform's webhook: the response was recorded. */
export class FormWebhookRecordedResponse {
  @IsIn(['recorded']) status!: 'recorded';
  @IsString() record_id!: string;
  @IsIn(['form_platform_webhook']) collection_channel!: 'form_platform_webhook';
  @IsString() collection_platform!: string;
}
