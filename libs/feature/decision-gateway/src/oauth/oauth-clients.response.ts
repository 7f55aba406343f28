import { Nullable } from '@svc/server';
import { IsIn, IsObject, IsOptional, IsString } from 'class-validator';
import { CLIENT_AUTH_METHODS, ID_TOKEN_ALGORITHMS, type ClientAuthMethod, type IdTokenAlgorithm } from './oauth-scopes';

/** An OAuth client as answered; `client_secret` only in the answer of registration. */
export class OAuthClientResponse {
  @IsString() client_id!: string;
  @IsIn(['oauth_client']) object!: 'oauth_client';
  @IsString() application_id!: string;
  @IsString() name!: string;
  @IsString({ each: true }) redirect_uris!: string[];
  @IsString({ each: true }) post_logout_redirect_uris!: string[];
  @IsIn([...CLIENT_AUTH_METHODS]) token_endpoint_auth_method!: ClientAuthMethod;
  @IsString({ each: true }) grant_types!: string[];
  @IsString({ each: true }) scopes!: string[];
  @IsIn([...ID_TOKEN_ALGORITHMS]) id_token_signed_response_alg!: IdTokenAlgorithm;
  /** The client's public keys (private_key_jwt), else null. */
  @IsObject() @Nullable() jwks!: Record<string, unknown> | null;
  @IsString() created_at!: string;
  /** Shown once, at registration, for `client_secret_basic` clients. */
  @IsOptional() @IsString() client_secret?: string;
}
