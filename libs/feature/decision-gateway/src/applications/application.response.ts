import { IsBoolean, IsIn, IsOptional, IsString } from 'class-validator';
import { APPLICATION_MODES, ENVIRONMENTS, type ApplicationMode, type Environment } from './application';

/** The wire shape of `applicationView`, published in the OpenAPI document. */
export class ApplicationResponse {
  @IsString() id!: string;
  @IsIn(['application']) object!: 'application';
  @IsString() name!: string;
  @IsIn([...ENVIRONMENTS]) environment!: Environment;
  @IsString() created_at!: string;
  @IsIn([...APPLICATION_MODES]) mode!: ApplicationMode;
  @IsBoolean() capabilities_published!: boolean;
  @IsString() region!: string;
  /** The current publishable key, where the answer includes it. */
  @IsOptional() @IsString() publishable_key?: string;
}
