import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsDefined,
  IsIn,
  IsObject,
  IsOptional,
  IsString,
  MaxLength,
  MinLength,
  ValidateNested,
} from 'class-validator';
import {
  CLIENT_AUTH_METHODS,
  CLIENT_GRANT_TYPES,
  ID_TOKEN_ALGORITHMS,
  OAUTH_SCOPES,
  type ClientAuthMethod,
  type ClientGrantType,
  type IdTokenAlgorithm,
} from './oauth-scopes';

/** A JWK Set of the client's public keys (private_key_jwt). */
export class ClientJwksInput {
  @IsDefined()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(10)
  @IsObject({ each: true })
  keys!: Array<Record<string, unknown>>;
}

/** Body of POST /api/v1/applications/:application_id/oauth_clients. */
export class RegisterOAuthClientBody {
  @IsDefined()
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  name!: string;

  /** Exact redirect URIs (compared character for character); independent of allowed origins. */
  @IsDefined()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(20)
  @IsString({ each: true })
  @MaxLength(2048, { each: true })
  redirect_uris!: string[];

  @IsOptional()
  @IsArray()
  @ArrayMaxSize(20)
  @IsString({ each: true })
  @MaxLength(2048, { each: true })
  post_logout_redirect_uris?: string[];

  /** `client_secret_basic` (default), `private_key_jwt` (with `jwks`), or `none` (public client, DPoP-bound tokens). */
  @IsOptional()
  @IsString()
  @IsIn(CLIENT_AUTH_METHODS)
  token_endpoint_auth_method?: ClientAuthMethod;

  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => ClientJwksInput)
  jwks?: ClientJwksInput;

  /** Default `authorization_code` and `refresh_token`. */
  @IsOptional()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(CLIENT_GRANT_TYPES.length)
  @IsIn(CLIENT_GRANT_TYPES, { each: true })
  grant_types?: ClientGrantType[];

  /** Scopes the client may ask for; default all of `openid profile email offline_access`. */
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(OAUTH_SCOPES.length)
  @IsIn(OAUTH_SCOPES, { each: true })
  scopes?: string[];

  /** Default RS256. */
  @IsOptional()
  @IsString()
  @IsIn(ID_TOKEN_ALGORITHMS)
  id_token_signed_response_alg?: IdTokenAlgorithm;
}
