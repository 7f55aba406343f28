import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
  MinLength,
  ValidateNested,
} from 'class-validator';

/** `POST /api/v1/agents`. `agent_metadata` is checked by parseAgentMetadata for the spec's reason codes. */
export class RegisterAgentBody {
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  name!: string;

  @IsOptional()
  @IsObject()
  agent_metadata?: Record<string, unknown>;
}

/** One scope of a capability manifest. */
export class CapabilityScopeBody {
  @IsString()
  @Matches(/^[a-z0-9_.:-]{1,128}$/, { message: 'id must be 1-128 of a-z 0-9 _ . : -' })
  id!: string;

  @IsString()
  @MinLength(1)
  @MaxLength(200)
  label!: string;

  @IsOptional()
  @IsString()
  @MaxLength(128)
  parent?: string;

  @IsOptional()
  @IsBoolean()
  custom?: boolean;

  @IsOptional()
  @IsIn(['active', 'deprecated'])
  status?: string;
}

/** `POST /api/v1/agents/:agent_id/capabilities`: publishes a new manifest version. */
export class PublishCapabilitiesBody {
  @IsArray()
  @ArrayMaxSize(200)
  @ValidateNested({ each: true })
  @Type(() => CapabilityScopeBody)
  scopes!: CapabilityScopeBody[];

  @IsArray()
  @ArrayMaxSize(200)
  @IsString({ each: true })
  @Matches(/^[a-z0-9_.:-]{1,64}$/, { each: true, message: 'each action must be 1-64 of a-z 0-9 _ . : -' })
  actions!: string[];
}
