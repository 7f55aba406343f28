import { Type } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, ValidateNested } from 'class-validator';
import { STREAM_STATUSES } from './ssf-stream';

export class StreamDeliveryResponse {
  @IsIn(['urn:ietf:rfc:8935']) method!: string;
  @IsString() endpoint_url!: string;
}

/** SSF 1.0 §8.1.1 stream configuration (`streamView`). */
export class StreamConfigurationResponse {
  @IsString() stream_id!: string;
  @IsString() iss!: string;
  /** The stream's audience: the application's id. */
  @IsString() aud!: string;
  @ValidateNested() @Type(() => StreamDeliveryResponse) delivery!: StreamDeliveryResponse;
  @IsString({ each: true }) events_supported!: string[];
  @IsString({ each: true }) events_requested!: string[];
  @IsString({ each: true }) events_delivered!: string[];
  @IsInt() min_verification_interval!: number;
  @IsOptional() @IsString() description?: string;
}

/** SSF 1.0 §8.1.2 stream status. */
export class StreamStatusResponse {
  @IsString() stream_id!: string;
  @IsIn(STREAM_STATUSES) status!: string;
  @IsOptional() @IsString() reason?: string;
}

export class AuthorizationSchemeResponse {
  @IsString() spec_urn!: string;
}

/** `/.well-known/ssf-configuration`: SSF 1.0 §7.1 transmitter configuration metadata. */
export class TransmitterConfigurationResponse {
  @IsString() spec_version!: string;
  @IsString() issuer!: string;
  @IsString() jwks_uri!: string;
  @IsString({ each: true }) delivery_methods_supported!: string[];
  @IsString() configuration_endpoint!: string;
  @IsString() status_endpoint!: string;
  @IsString() verification_endpoint!: string;
  @ValidateNested({ each: true }) @Type(() => AuthorizationSchemeResponse) authorization_schemes!: AuthorizationSchemeResponse[];
  @IsIn(['ALL', 'NONE']) default_subjects!: string;
}
