import { IsOptional, IsString, Matches, MaxLength, MinLength } from 'class-validator';

/** `POST /api/v1/agent_identities`: an agent identity with its provider, model and DPoP key. */
export class RegisterAgentIdentityBody {
  @IsString() @MinLength(1) @MaxLength(200) name!: string;
  /** Who runs the model (e.g. `anthropic`, `in-house`). */
  @IsString() @MinLength(1) @MaxLength(200) provider!: string;
  /** The model the agent runs. */
  @IsString() @MinLength(1) @MaxLength(200) model!: string;
  /** RFC 7638 thumbprint (base64url SHA-256) of the agent's DPoP public key. */
  @IsString()
  @Matches(/^[A-Za-z0-9_-]{43}$/, { message: 'dpop_jkt must be a base64url SHA-256 thumbprint (43 characters)' })
  dpop_jkt!: string;
  /** One of the agent taxonomy (`agent_type_outside_taxonomy` otherwise). */
  @IsOptional() @IsString() @MaxLength(32) agent_type?: string;
}
