import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsDefined,
  IsIn,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
  ValidateNested,
} from 'class-validator';
import { IsIdOf } from '@svc/ids';
import { SubjectInput } from '../records/records.dto';
import { CAPTURE_CHANNELS, type CaptureChannel } from './capture';
import { RoutedBy } from '@svc/ids';

/** One bound control as the snippet (or the rendered field) saw it at submission. */
export class CapturedFieldInput {
  @IsDefined()
  @IsString()
  @Matches(/^[a-z][a-z0-9_]{0,63}$/)
  purpose!: string;

  @IsDefined()
  @IsString()
  @MaxLength(32)
  control!: string;

  @IsDefined()
  @IsBoolean()
  checked!: boolean;

  @IsOptional()
  @IsBoolean()
  default_checked?: boolean;

  @IsOptional()
  @IsBoolean()
  required?: boolean;
}

/** Body of POST /capture/v1/captures (publishable key, allowed Origin). */
@RoutedBy('flow_id')
export class CreateCaptureBody {
  @IsDefined()
  @IsIdOf('flow')
  flow_id!: string;

  @IsOptional()
  @IsString()
  @IsIn(CAPTURE_CHANNELS)
  channel?: CaptureChannel;

  /** SHA-256 (hex) of the service-rendered field shown, as GET /capture/v1/fields/:flow_id returned it; channel embedded_field_browser only. */
  @IsOptional()
  @IsString()
  @Matches(/^[0-9a-f]{64}$/)
  rendering_digest?: string;

  @IsDefined()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(50)
  @IsObject({ each: true })
  @ValidateNested({ each: true })
  @Type(() => CapturedFieldInput)
  fields!: CapturedFieldInput[];
}

/** Body of POST /api/v1/decisions/:capture_token/authorize (API token). */
export class AuthorizeCaptureBody {
  @IsDefined()
  @IsObject()
  @ValidateNested()
  @Type(() => SubjectInput)
  subject!: SubjectInput;

  /** True sends no receipt email for this record. */
  @IsOptional()
  @IsBoolean()
  suppress_receipt?: boolean;
}
