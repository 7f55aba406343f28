import { PlatformConfig } from '@svc/config';
import { Type } from 'class-transformer';
import { IsInt, Max, Min } from 'class-validator';

/**
 * The OpenID provider's own variables (all optional), validated at boot with every feature's
 * (decision-gateway's config class extends this one); the issuer is the region's PUBLIC_BASE_URL.
 */
export class OAuthConfig extends PlatformConfig {
  /** Lifetime of access tokens, seconds (default 10 minutes). */
  @Type(() => Number) @IsInt() @Min(60) @Max(86_400) OAUTH_ACCESS_TOKEN_TTL_SECONDS = 600;
  /** Lifetime of a refresh token family from its first issue, seconds (default 14 days). */
  @Type(() => Number) @IsInt() @Min(300) @Max(31_536_000) OAUTH_REFRESH_TOKEN_TTL_SECONDS = 1_209_600;
  /** Lifetime of authorization codes, seconds (default 60). */
  @Type(() => Number) @IsInt() @Min(10) @Max(600) OAUTH_CODE_TTL_SECONDS = 60;
  /** Lifetime of a pushed authorization request (`request_uri`), seconds (default 60). */
  @Type(() => Number) @IsInt() @Min(10) @Max(600) OAUTH_PAR_TTL_SECONDS = 60;
  /** Lifetime of a device code and its user code, seconds (default 10 minutes). */
  @Type(() => Number) @IsInt() @Min(60) @Max(3_600) OAUTH_DEVICE_CODE_TTL_SECONDS = 600;
  /** Wrong user codes one browser may enter on the device page before it is refused (default 5). */
  @Type(() => Number) @IsInt() @Min(1) @Max(20) OAUTH_DEVICE_MAX_WRONG_CODES = 5;
}
