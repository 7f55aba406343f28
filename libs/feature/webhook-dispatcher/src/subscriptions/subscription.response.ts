import { Nullable } from '@svc/server';
import { IsIn, IsInt, IsOptional, IsString } from 'class-validator';

/** The wire shape of `subscriptionView`, published in the OpenAPI document. */
export class WebhookSubscriptionResponse {
  @IsString() id!: string;
  @IsIn(['webhook_subscription']) object!: 'webhook_subscription';
  @IsString() application_id!: string;
  @IsString() url!: string;
  @IsString({ each: true }) events!: string[];
  @IsString({ each: true }) signature_formats!: string[];
  @IsIn(['enabled', 'disabled']) status!: 'enabled' | 'disabled';
  @IsString() @Nullable() disabled_reason!: string | null;
  @IsString() @Nullable() disabled_at!: string | null;
  @IsInt() consecutive_failures!: number;
  @IsString() @Nullable() previous_secret_expires_at!: string | null;
  @IsString() created_at!: string;
  @IsString() updated_at!: string;
  /** The signing secret: only in the answers of create and rotate. */
  @IsOptional() @IsString() secret?: string;
}
