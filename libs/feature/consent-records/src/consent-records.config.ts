import { Transform } from 'class-transformer';
import { IsInt, IsOptional, Matches, Max, Min } from 'class-validator';
import { PlatformConfig, intFromEnv } from '@svc/config';

/**
 * consent-records's variables (validated at boot with every feature's, failing by name): the platform's
 * today; a variable of its own is declared here, never read from the environment elsewhere.
 */
export class ConsentRecordsConfig extends PlatformConfig {
  /**
   * Base64 of the 32-byte key of the cross-border directory, the same in every region of a
   * deployment: the opaque identifier of a person in the directory is an HMAC under it. Unset, the
   * region neither publishes to nor answers from the directory.
   */
  @IsOptional()
  @Matches(/^[A-Za-z0-9+/]{43}=$/, { message: 'DIRECTORY_KEY must be base64 of exactly 32 bytes' })
  DIRECTORY_KEY?: string;

  /**
   * How often the retention sweep ends consents whose term (flow consent_duration or a data
   * policy's retention) has run out, ms. 0 turns the background sweep off (the endpoint
   * `POST /api/v1/policies/retention_sweeps` still sweeps on demand). Default 60 000.
   */
  @Transform(intFromEnv)
  @IsInt()
  @Min(0)
  @Max(86_400_000)
  RETENTION_SWEEP_INTERVAL_MS = 60_000;
}
