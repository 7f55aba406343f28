import { Nullable } from '@svc/server';
import { Type } from 'class-transformer';
import { Allow, IsBoolean, IsIn, IsInt, IsString, ValidateNested } from 'class-validator';

/** One attempt of a delivery. */
export class WebhookDeliveryAttemptResponse {
  @IsInt() number!: number;
  @IsString() started_at!: string;
  @IsInt() latency_ms!: number;
  @IsInt() @Nullable() status_code!: number | null;
  @IsString() @Nullable() error!: string | null;
  /** `succeeded`, `retry` or `failed`. */
  @IsString() outcome!: string;
}

/** The wire shape of `deliveryView` (`webhook_delivery`), published in the OpenAPI document. */
export class WebhookDeliveryResponse {
  @IsString() id!: string;
  @IsIn(['webhook_delivery']) object!: 'webhook_delivery';
  @IsString() event_id!: string;
  @IsString() event_type!: string;
  @IsBoolean() test!: boolean;
  @IsIn(['pending', 'succeeded', 'failed']) status!: 'pending' | 'succeeded' | 'failed';
  @IsInt() attempt_count!: number;
  @IsInt() max_attempts!: number;
  @IsString() @Nullable() next_attempt_at!: string | null;
  @IsInt() @Nullable() last_status_code!: number | null;
  @IsString() @Nullable() last_error!: string | null;
  @IsString() created_at!: string;
  @IsString() @Nullable() completed_at!: string | null;
  /** The event as delivered; null once retention purged it. */
  @Allow() payload!: unknown;
  @ValidateNested({ each: true }) @Type(() => WebhookDeliveryAttemptResponse) attempts!: WebhookDeliveryAttemptResponse[];
}
