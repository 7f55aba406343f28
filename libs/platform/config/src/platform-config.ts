import { Transform } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, IsUrl, Matches, Max, Min } from 'class-validator';

export const REGIONS = ['us', 'eu', 'ap'] as const;
export type Region = (typeof REGIONS)[number];

export function isRegion(value: unknown): value is Region {
  return typeof value === 'string' && (REGIONS as readonly string[]).includes(value);
}

/**
 * class-transformer `@Transform` for integer variables: a string of digits becomes a number; anything
 * else is left for `@IsInt` to refuse by name.
 */
export const intFromEnv = ({ value }: { value: unknown }): unknown =>
  typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;

/**
 * Variables every process reads, whatever it runs: its region, its HTTP listener, the public URLs
 * of the regions, logging and tracing. A process whose features store nothing and use no bus (the
 * residency router alone) needs only these.
 */
export class ProcessConfig {
  /** Region this process serves: us, eu or ap. Required. */
  @IsIn(REGIONS)
  REGION!: Region;

  /** Interface the HTTP server binds. */
  @IsString()
  HTTP_HOST = '127.0.0.1';

  /** Port the HTTP server listens on; 0 picks a free port. */
  @Transform(intFromEnv)
  @IsInt()
  @Min(0)
  @Max(65535)
  HTTP_PORT = 8080;

  /** Largest accepted request body, in bytes. */
  @Transform(intFromEnv)
  @IsInt()
  @Min(1024)
  HTTP_BODY_LIMIT_BYTES = 1_048_576;

  /** Public base URL of this region's API (router), used in links the service returns. */
  @IsUrl({ require_tld: false, protocols: ['http', 'https'] })
  PUBLIC_BASE_URL = 'http://127.0.0.1:8081';

  /** Comma-separated `region=url` pairs of every region's public router, for redirects. */
  @Matches(/^([a-z]{2}=https?:\/\/[^,\s]+)(,[a-z]{2}=https?:\/\/[^,\s]+)*$/, {
    message: 'REGION_URLS must be region=url pairs separated by commas',
  })
  REGION_URLS = 'us=http://127.0.0.1:8081,eu=http://127.0.0.1:8082,ap=http://127.0.0.1:8083';

  /**
   * Comma-separated `region=country` pairs (ISO 3166-1 alpha-2) naming the country each region's
   * data lives in, as wrong-region answers report it (`home_country`); unnamed regions keep
   * {@link DEFAULT_REGION_COUNTRIES}.
   */
  @Matches(/^[a-z]{2}=[A-Z]{2}(,[a-z]{2}=[A-Z]{2})*$/, {
    message: 'REGION_COUNTRIES must be region=CC pairs (ISO 3166-1 alpha-2) separated by commas',
  })
  REGION_COUNTRIES = 'us=US,eu=DE,ap=SG';

  /** pino level. */
  @IsIn(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
  LOG_LEVEL = 'info';

  /** When set, traces are exported over OTLP/HTTP to this endpoint. */
  @IsOptional()
  @IsUrl({ require_tld: false, protocols: ['http', 'https'] })
  OTEL_EXPORTER_OTLP_ENDPOINT?: string;

  /** Name reported in logs, metrics and traces. */
  @IsString()
  SERVICE_NAME = 'svc';

  /** PUBLIC_BASE_URL without a trailing slash: links are this followed by a path. */
  get publicBaseUrl(): string {
    return this.PUBLIC_BASE_URL.replace(/\/+$/, '');
  }
}

/**
 * Variables of a process whose features keep data or use the bus: the region database, the
 * key-encryption key of its signing keys and bus seal, and the NATS bus. Feature config classes
 * that need them extend this class. Defaults suit the local stack; production sets every URL explicitly.
 */
export class PlatformConfig extends ProcessConfig {
  /** Postgres connection URL of this region's database. */
  @Matches(/^postgres(ql)?:\/\/\S+$/, { message: 'DATABASE_URL must be a postgres:// URL' })
  DATABASE_URL!: string;

  /**
   * Direct Postgres URL of the same database, for the session-level features a transaction pooler
   * (PgBouncer `pool_mode = transaction`) cannot carry: the outbox LISTEN connection and the
   * migrations' session advisory lock. Unset: DATABASE_URL (no pooler in between).
   */
  @IsOptional()
  @Matches(/^postgres(ql)?:\/\/\S+$/, { message: 'DATABASE_DIRECT_URL must be a postgres:// URL' })
  DATABASE_DIRECT_URL?: string;

  /** Connections in this process's pool. */
  @Transform(intFromEnv)
  @IsInt()
  @Min(1)
  @Max(100)
  DATABASE_POOL_SIZE = 5;

  /** NATS server URL(s), comma separated. */
  @Matches(/^nats:\/\/\S+$/, { message: 'NATS_URL must be a nats:// URL' })
  NATS_URL = 'nats://127.0.0.1:4222';

  /** Bus user of this region's account (with NATS_PASSWORD); the bus is anonymous when no credential is set. */
  @IsOptional()
  @IsString()
  NATS_USER?: string;

  @IsOptional()
  @IsString()
  NATS_PASSWORD?: string;

  /** Bus token, instead of a user and password. */
  @IsOptional()
  @IsString()
  NATS_TOKEN?: string;

  /** Path of a NATS credentials file (JWT and NKey seed), instead of a user and password. */
  @IsOptional()
  @IsString()
  NATS_CREDS?: string;

  /** Prefix of every subject and stream name; tests use their own to stay isolated. */
  @Matches(/^[a-z][a-z0-9]{0,15}$/, { message: 'BUS_PREFIX must be 1-16 lowercase letters or digits' })
  BUS_PREFIX = 'svc';

  /**
   * Base64 of the 32-byte key-encryption key protecting signing keys at rest. Required: without it
   * no signing key can be read or created.
   */
  @Matches(/^[A-Za-z0-9+/]{43}=$/, { message: 'KEY_ENCRYPTION_KEY must be base64 of exactly 32 bytes' })
  KEY_ENCRYPTION_KEY!: string;

  /**
   * Seconds a known credential's last answer may still be served after its 5-second cache when its
   * owner cannot be asked (bus outage); 0 turns it off. Bounded: never unlimited, at most an hour.
   */
  @Transform(intFromEnv)
  @IsInt()
  @Min(0)
  @Max(3_600)
  CREDENTIAL_STALE_IF_ERROR_SECONDS = 300;
}

/** Where each region's data lives by default: the country of its datacentre (ISO 3166-1 alpha-2). */
export const DEFAULT_REGION_COUNTRIES: Readonly<Record<Region, string>> = { us: 'US', eu: 'DE', ap: 'SG' };

/** The residency table: REGION_COUNTRIES over {@link DEFAULT_REGION_COUNTRIES}. */
export function regionCountries(config: Pick<PlatformConfig, 'REGION_COUNTRIES'>): Record<Region, string> {
  const result: Record<Region, string> = { ...DEFAULT_REGION_COUNTRIES };
  for (const pair of config.REGION_COUNTRIES.split(',')) {
    const [region, country] = pair.split('=', 2);
    if (isRegion(region) && country && /^[A-Z]{2}$/.test(country)) result[region] = country;
  }
  return result;
}

/** A region as a wrong-region answer names it: the region, its country and its router's URL. */
export function homeRegionOf(
  config: Pick<PlatformConfig, 'REGION_COUNTRIES' | 'REGION_URLS'>,
  region: Region,
): { region: Region; country: string; url?: string } {
  const url = regionUrls(config)[region];
  return { region, country: regionCountries(config)[region], ...(url ? { url } : {}) };
}

/** Parses REGION_URLS into a map. */
export function regionUrls(config: Pick<PlatformConfig, 'REGION_URLS'>): Record<Region, string> {
  const result: Partial<Record<Region, string>> = {};
  for (const pair of config.REGION_URLS.split(',')) {
    const [region, url] = pair.split('=', 2);
    if (isRegion(region) && url) result[region] = url.replace(/\/$/, '');
  }
  return result as Record<Region, string>;
}
