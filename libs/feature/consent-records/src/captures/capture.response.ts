import { IsIn, IsInt, IsString } from 'class-validator';

/** 200 of GET /capture/v1/fields/{flow_id}: the service-rendered consent field. */
export class ConsentFieldResponse {
  @IsIn(['consent_field']) object!: 'consent_field';
  @IsString() flow_id!: string;
  @IsInt() flow_version!: number;
  @IsString() locale!: string;
  @IsString() html!: string;
  /** SHA-256 hex of `html`, carried back by the capture. */
  @IsString() rendering_digest!: string;
}

/** 201 of POST /capture/v1/captures: the capture token (valid 24 h). */
export class CaptureResponse {
  @IsString() capture_token!: string;
  @IsIn(['capture']) object!: 'capture';
  @IsString() flow_id!: string;
  @IsInt() flow_version!: number;
  @IsString() channel!: string;
  @IsString() expires_at!: string;
}

/** 200 of POST /api/v1/decisions/{capture_token}/authorize: the capture committed as a record. */
export class CaptureAuthorizedResponse {
  @IsIn(['committed']) status!: string;
  @IsString() record_id!: string;
  @IsString() channel!: string;
}
