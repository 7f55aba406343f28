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
  MinLength,
  ValidateNested,
} from 'class-validator';
import { IsIdOf } from '@svc/ids';
import { PageQuery } from '@svc/server';
import { FORM_PLATFORMS, type FormPlatform } from './form-integration';
import { RoutedBy } from '@svc/ids';

const FIELD_REF = /^[^\s]{1,255}$/;

/** One purpose and the form field carrying its decision, as the platform's form definition describes the field. */
export class PurposeMappingInput {
  @IsDefined()
  @IsString()
  @Matches(/^[a-z][a-z0-9_]{0,63}$/)
  purpose!: string;

  /** The field's `ref` in the platform's form definition. */
  @IsDefined()
  @IsString()
  @Matches(FIELD_REF)
  field_ref!: string;

  /** The field's `type` in the form definition, e.g. yes_no, legal, multiple_choice. */
  @IsDefined()
  @IsString()
  @Matches(/^[a-z][a-z_]{0,63}$/)
  field_type!: string;

  /** The field's `validations.required` in the form definition. Default false. */
  @IsOptional()
  @IsBoolean()
  required?: boolean;

  /** The form answers the field in agreement unless the person changes it. Default false. */
  @IsOptional()
  @IsBoolean()
  default_checked?: boolean;
}

/** Which answers identify the person. */
export class SubjectMappingInput {
  /** Ref of the email question. */
  @IsDefined()
  @IsString()
  @Matches(FIELD_REF)
  email_field_ref!: string;

  /** Ref of a question, or name of a hidden field, carrying the organisation's own id of the person. */
  @IsOptional()
  @IsString()
  @Matches(FIELD_REF)
  external_id_field_ref?: string;
}

/** Body of POST /api/v1/consent_records/form_integrations. */
@RoutedBy('flow_id')
export class CreateFormIntegrationBody {
  @IsDefined()
  @IsString()
  @IsIn(FORM_PLATFORMS)
  platform!: FormPlatform;

  @IsDefined()
  @IsIdOf('flow')
  flow_id!: string;

  /** The platform's form id; deliveries of other forms are refused. Optional. */
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(100)
  @Matches(/^[A-Za-z0-9_-]+$/)
  form_id?: string;

  @IsDefined()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(50)
  @IsObject({ each: true })
  @ValidateNested({ each: true })
  @Type(() => PurposeMappingInput)
  purposes!: PurposeMappingInput[];

  @IsDefined()
  @IsObject()
  @ValidateNested()
  @Type(() => SubjectMappingInput)
  subject!: SubjectMappingInput;
}

/** Query of GET …/form_integrations/:id/intakes. */
export class FormIntakesQuery extends PageQuery {
  @IsOptional()
  @IsString()
  @IsIn(['recorded', 'refused'])
  outcome?: 'recorded' | 'refused';
}
