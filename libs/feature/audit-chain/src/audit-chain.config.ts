import { Transform } from 'class-transformer';
import { IsInt, IsOptional, IsUrl, Matches, Max, Min } from 'class-validator';
import { ConfigError, intFromEnv, loadConfig, type PlatformConfig } from '@svc/config';


/**
 * audit-chain's own variables (validated at boot, failing with the variable's name). All optional:
 * without a witness, checkpoints are still made and signed, just not cosigned.
 */
export class AuditChainConfig {
  /** Base URL of the external C2SP tlog-witness (its submission prefix); `/add-checkpoint` is appended. */
  @IsOptional()
  @IsUrl({ require_tld: false, protocols: ['http', 'https'] })
  AUDIT_WITNESS_URL?: string;

  /** The witness's cosignature/v1 verifier key, `<name>+<hex key id>+<base64(0x04 || key)>`. */
  @IsOptional()
  @Matches(/^[^+\s]+\+[0-9a-fA-F]{8}\+[A-Za-z0-9+/]+=*$/, { message: 'AUDIT_WITNESS_KEY must be a verifier key <name>+<key id>+<base64 key>' })
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

const KEYS = [
  'AUDIT_WITNESS_URL',
  'AUDIT_WITNESS_KEY',
  'AUDIT_CHECKPOINT_INTERVAL_SECONDS',
  'AUDIT_WITNESS_TIMEOUT_MS',
  'AUDIT_APPEND_MAX_BATCH',
  'AUDIT_APPEND_WINDOW_MS',
] as const;

/**
 * Reads {@link AuditChainConfig} from the process's loaded configuration (which keeps every
 * variable it was given, so tests pass these through `testConfig`), falling back to the
 * environment. Throws `ConfigError` naming a bad variable.
 */
export function loadAuditChainConfig(platform: PlatformConfig, env: NodeJS.ProcessEnv = process.env): AuditChainConfig {
  const source = platform as unknown as Record<string, unknown>;
  const values: Record<string, string> = {};
  for (const key of KEYS) {
    const value = source[key] ?? env[key];
    if (value !== undefined && value !== '') values[key] = String(value);
  }
  const config = loadConfig(AuditChainConfig, values);
  // A URL without a key would send checkpoints whose cosignatures could never be verified.
  if ((config.AUDIT_WITNESS_URL === undefined) !== (config.AUDIT_WITNESS_KEY === undefined)) {
    const missing = config.AUDIT_WITNESS_URL === undefined ? 'AUDIT_WITNESS_URL' : 'AUDIT_WITNESS_KEY';
    throw new ConfigError([missing], `${missing}: AUDIT_WITNESS_URL and AUDIT_WITNESS_KEY are set together`);
  }
  return config;
}
