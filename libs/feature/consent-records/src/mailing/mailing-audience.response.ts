import { IsArray, IsIn, IsOptional, IsString } from 'class-validator';

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
