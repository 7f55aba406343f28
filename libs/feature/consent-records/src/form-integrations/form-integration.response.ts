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
