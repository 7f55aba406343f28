import { IsIn, IsObject } from 'class-validator';

/** 200 of GET /healthz. */
export class HealthResponse {
  @IsIn(['ok']) status!: 'ok';
}

/** GET /readyz: 200 `ok`, or 503 `unavailable` (with `Retry-After`); each check `{ok, detail?}` by name. */
export class ReadinessResponse {
  @IsIn(['ok', 'unavailable']) status!: 'ok' | 'unavailable';
  @IsObject() checks!: Record<string, { ok: boolean; detail?: Record<string, unknown> }>;
}
