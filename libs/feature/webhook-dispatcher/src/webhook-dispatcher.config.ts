import { Transform } from 'class-transformer';
import { IsInt, Max, Min } from 'class-validator';
import { PlatformConfig, intFromEnv } from '@svc/config';

/** Variables of webhook-dispatcher (validated at boot with every feature's, failing by name). */
export class WebhookDispatcherConfig extends PlatformConfig {
  /** Days a completed delivery keeps its payload in the delivery log; the attempts stay. Default 30. */
  @Transform(intFromEnv)
  @IsInt()
  @Min(1)
  @Max(3650)
  WEBHOOK_PAYLOAD_RETENTION_DAYS = 30;

  /** Deliveries one dispatcher process keeps in flight at once. Default 128. */
  @Transform(intFromEnv)
  @IsInt()
  @Min(1)
  @Max(4096)
  WEBHOOK_CONCURRENCY = 128;

  /** How often an idle worker looks for due deliveries, ms (local enqueues wake it at once). Default 500. */
  @Transform(intFromEnv)
  @IsInt()
  @Min(10)
  @Max(60_000)
  WEBHOOK_POLL_MS = 500;

  /**
   * How long a claimed delivery stays leased to its worker, seconds. Must exceed the longest attempt
   * (10 s connect + 15 s headers + 15 s body), so a live worker's claim never lapses while it sends;
   * a crashed worker's claims are retried when it lapses. Default 60.
   */
  @Transform(intFromEnv)
  @IsInt()
  @Min(45)
  @Max(3600)
  WEBHOOK_LEASE_SEC = 60;

  /** Subscriptions one application may hold. Default 20. */
  @Transform(intFromEnv)
  @IsInt()
  @Min(1)
  @Max(1000)
  WEBHOOK_MAX_SUBSCRIPTIONS = 20;
}
