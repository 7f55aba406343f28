import { PlatformConfig } from '@svc/config';
import { IsOptional, Matches } from 'class-validator';

const COUNTRY = /^[A-Z]{2}$/;
const COUNTRY_MESSAGE = (name: string) => ({ message: `${name} must be an ISO 3166-1 alpha-2 country code` });

/**
 * The transfer register's variables: it keeps the register in the region database (so it extends
 * `PlatformConfig`), and declares where the parts of the deployment the process cannot inspect
 * keep data. Each `RESIDENCY_*_COUNTRY` is a declaration by the operator: the posture reports it
 * as `declared`, and as `violated` when it names a country other than the region's.
 */
export class ResidencyRegisterConfig extends PlatformConfig {
  /** Country of the region database when its host is not on the region's private network. */
  @IsOptional()
  @Matches(COUNTRY, COUNTRY_MESSAGE('RESIDENCY_DATABASE_COUNTRY'))
  RESIDENCY_DATABASE_COUNTRY?: string;

  /** Country of the NATS servers when their host is not on the region's private network. */
  @IsOptional()
  @Matches(COUNTRY, COUNTRY_MESSAGE('RESIDENCY_BUS_COUNTRY'))
  RESIDENCY_BUS_COUNTRY?: string;

  /** Country where the database's backups are kept (the platform takes none itself). */
  @IsOptional()
  @Matches(COUNTRY, COUNTRY_MESSAGE('RESIDENCY_BACKUP_COUNTRY'))
  RESIDENCY_BACKUP_COUNTRY?: string;

  /** Country of the sink collecting the processes' stdout logs. */
  @IsOptional()
  @Matches(COUNTRY, COUNTRY_MESSAGE('RESIDENCY_LOG_SINK_COUNTRY'))
  RESIDENCY_LOG_SINK_COUNTRY?: string;

  /** Country of the OTLP collector, when `OTEL_EXPORTER_OTLP_ENDPOINT` is not on the private network. */
  @IsOptional()
  @Matches(COUNTRY, COUNTRY_MESSAGE('RESIDENCY_TELEMETRY_COUNTRY'))
  RESIDENCY_TELEMETRY_COUNTRY?: string;
}
