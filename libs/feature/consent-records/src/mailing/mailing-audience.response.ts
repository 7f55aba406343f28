import { Nullable } from '@svc/server';
import { Allow, IsArray, IsIn, IsInt, IsOptional, IsString } from 'class-validator';

/** The wire shape of `mailingAudienceView` (`mailing_audience`; never the API key or webhook secret). */
export class MailingAudienceResponse {
  @IsString() id!: string;
  @IsIn(['mailing_audience']) object!: 'mailing_audience';
  @IsString() application_id!: string;
  @IsString() provider!: string;
  @IsString() api_base_url!: string;
  @IsString() list_id!: string;
  @IsString() flow_id!: string;
  /** How the provider's marketing permissions map to the flow's purposes. */
  @IsArray() permissions!: unknown[];
  /** Tags set per purpose. */
  @IsArray() tags!: unknown[];
  @IsString() created_at!: string;
  /** Where the provider sends its webhooks: only in the answer of create. */
  @IsOptional() @IsString() webhook_url?: string;
}

/** `syncView` (`mailing_sync`): a member write of a record event to the mailing tool. */
export class MailingSyncResponse {
  @IsString() id!: string;
  @IsIn(['mailing_sync']) object!: 'mailing_sync';
  @IsString() event_id!: string;
  @IsString() event_type!: string;
  @IsString() record_id!: string;
  @IsString() @Nullable() email!: string | null;
  @IsString() status!: string;
  @Allow() permissions!: unknown;
  @Allow() tags!: unknown;
  @IsInt() attempts!: number;
  @IsString() @Nullable() next_attempt_at!: string | null;
  @IsInt() @Nullable() last_status_code!: number | null;
  @IsString() @Nullable() last_error!: string | null;
  @IsString() occurred_at!: string;
  @IsString() created_at!: string;
  @IsString() @Nullable() completed_at!: string | null;
}

/** `inboundView` (`mailing_inbound_event`): an event the mailing tool posted and what came of it. */
export class MailingInboundEventResponse {
  @IsString() id!: string;
  @IsIn(['mailing_inbound_event']) object!: 'mailing_inbound_event';
  @IsString() type!: string;
  @IsString() @Nullable() email!: string | null;
  @IsString() @Nullable() list_id!: string | null;
  @IsString() @Nullable() fired_at!: string | null;
  @IsString() status!: string;
  @IsString() @Nullable() outcome!: string | null;
  @IsString() @Nullable() record_id!: string | null;
  @IsString({ each: true }) withdrawn_purposes!: string[];
  @IsInt() attempts!: number;
  @IsInt() @Nullable() last_status_code!: number | null;
  @IsString() @Nullable() last_error!: string | null;
  @IsString() received_at!: string;
  @IsString() @Nullable() completed_at!: string | null;
}

/** The answer to the mailing tool's webhook calls. */
export class InboundReceiptResponse {
  @IsIn([true]) received!: true;
  @IsIn(['queued', 'ignored', 'validated']) outcome!: 'queued' | 'ignored' | 'validated';
}
