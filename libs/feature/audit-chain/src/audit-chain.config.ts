import { Transform } from 'class-transformer';
import { IsDefined, IsInt, IsUrl, Matches, Max, Min, ValidateIf } from 'class-validator';
import { PlatformConfig, intFromEnv } from '@svc/config';

/** A URL without a key would send checkpoints whose cosignatures could never be verified: both or neither. */
const witnessConfigured = (config: AuditChainConfig): boolean =>
  config.AUDIT_WITNESS_URL !== undefined || config.AUDIT_WITNESS_KEY !== undefined;
const TOGETHER = { message: 'AUDIT_WITNESS_URL and AUDIT_WITNESS_KEY are set together' };

/**
 * audit-chain's variables (validated at boot with every feature's, failing with the variable's
 * name). Its own are all optional: without a witness, checkpoints are still made and signed, just
 * not cosigned.
 */
export class AuditChainConfig extends PlatformConfig {
  /** Base URL of the external C2SP tlog-witness (its submission prefix); `/add-checkpoint` is appended. */
  @ValidateIf(witnessConfigured)
  @IsDefined(TOGETHER)
  @IsUrl({ require_tld: false, protocols: ['http', 'https'] })
  AUDIT_WITNESS_URL?: string;

  /** The witness's cosignature/v1 verifier key, `<name>+<hex key id>+<base64(0x04 || key)>`. */
  @ValidateIf(witnessConfigured)
  @IsDefined(TOGETHER)
  @Matches(/^[^+\s]+\+[0-9a-fA-F]{8}\+[A-Za-z0-9+/]+=*$/, {
    message: 'AUDIT_WITNESS_KEY must be a verifier key <name>+<key id>+<base64 key>',
  })
  AUDIT_WITNESS_KEY?: string;

  /** Seconds between checkpoints; default 900 (the spec's 15 minutes). */
  @Transform(intFromEnv)
  @IsInt()
  @Min(1)
  @Max(86_400)
  AUDIT_CHECKPOINT_INTERVAL_SECONDS = 900;

  /** Timeout of one witness request, ms; default 10 000. */
  @Transform(intFromEnv)
  @IsInt()
  @Min(100)
  @Max(120_000)
  AUDIT_WITNESS_TIMEOUT_MS = 10_000;

  /** Largest number of entries one group commit writes; default 1 000. */
  @Transform(intFromEnv)
  @IsInt()
  @Min(1)
  @Max(10_000)
  AUDIT_APPEND_MAX_BATCH = 1_000;

  /** How long the writer waits for more appends before committing a non-full batch, ms; default 1. */
  @Transform(intFromEnv)
  @IsInt()
  @Min(0)
  @Max(100)
  AUDIT_APPEND_WINDOW_MS = 1;
}
