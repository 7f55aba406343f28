import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsOptional,
  IsString,
  IsUrl,
  Matches,
  MaxLength,
  MinLength,
  ValidateNested,
} from 'class-validator';

const NAME = /^[A-Za-z0-9_.:\-/]{1,128}$/;
const NAME_MESSAGE = 'must be 1-128 of A-Z a-z 0-9 _ . : - /';

export class ToolValueBody {
  /** The tool argument holding the amount of a call. */
  @IsString() @Matches(/^[A-Za-z0-9_]{1,64}$/, { message: 'must be 1-64 of A-Z a-z 0-9 _' }) amount_argument!: string;
  @IsString() @Matches(/^[A-Z]{3}$/, { message: 'must be an ISO 4217 code' }) currency!: string;
}

export class ToolMappingBody {
  /** The upstream tool's name. */
  @IsString() @Matches(/^[A-Za-z0-9_.-]{1,128}$/, { message: 'must be 1-128 of A-Z a-z 0-9 _ . -' }) name!: string;
  @IsString() @Matches(NAME, { message: NAME_MESSAGE }) action!: string;
  @IsString() @Matches(NAME, { message: NAME_MESSAGE }) scope!: string;
  @IsOptional() @ValidateNested() @Type(() => ToolValueBody) value?: ToolValueBody;
}

/** `POST /api/v1/mcp_servers`: an upstream MCP server (Streamable HTTP) and the OAP mapping of its tools. */
export class RegisterMcpServerBody {
  @IsString() @MinLength(1) @MaxLength(120) name!: string;
  /** Streamable HTTP endpoint of the upstream server (https; http to loopback for development applications). */
  @IsString() @MaxLength(2048) @IsUrl({ protocols: ['https', 'http'], require_tld: false, require_protocol: true }) url!: string;
  @IsArray() @ArrayMinSize(1) @ArrayMaxSize(100) @ValidateNested({ each: true }) @Type(() => ToolMappingBody) tools!: ToolMappingBody[];
}
