import {
  IsBoolean,
  IsDefined,
  IsIn,
  IsInt,
  IsObject,
  IsOptional,
  IsRFC3339,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
  ValidateIf,
  registerDecorator,
  type ValidationOptions,
} from 'class-validator';
import { Transform } from 'class-transformer';
import { canonicalJson } from '@svc/crypto';
import { IsIdOf } from '@svc/ids';
import { PageQuery } from '@svc/server';
import {
  ATTESTATION_DECISIONS,
  LEGAL_BASES,
  MAX_ACTION_CLASS_LENGTH,
  MAX_AGENT_CLASS_LENGTH,
  MAX_ATTESTATION_ID_LENGTH,
  MAX_CONTEXT_BYTES,
  type AttestationDecision,
  type LegalBasis,
} from './attestation';
import { RoutedBy } from '@svc/ids';

/** Refuses a value whose RFC 8785 canonical JSON exceeds `maxBytes` UTF-8 bytes (or has none). */
function MaxCanonicalBytes(maxBytes: number, options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'maxCanonicalBytes',
      target: target.constructor,
      propertyName: propertyName as string,
      options: { message: `${String(propertyName)} must serialise to at most ${maxBytes} bytes of canonical JSON`, ...options },
      validator: {
        validate(value: unknown): boolean {
          try {
            return Buffer.byteLength(canonicalJson(value), 'utf8') <= maxBytes;
          } catch {
            return false;
          }
        },
      },
    });
}

/**
 * `POST /api/v1/oap/attestations` (spec, Attestation request). Shape errors (missing field, wrong
 * type, unknown field) answer 400 `invalid_request`; rule errors (length, enum, format, range,
 * size) answer 422 `validation_failed`; both name the field.
 */
@RoutedBy('application_id', 'touchpoint_id')
export class SubmitAttestationBody {
  /** Idempotency key chosen by the engine, 1–64 printable ASCII characters. */
  @IsDefined()
  @IsString()
  @MinLength(1)
  @MaxLength(MAX_ATTESTATION_ID_LENGTH)
  @Matches(/^[\x21-\x7e]+$/, { message: 'attestation_id must be printable ASCII without spaces' })
  attestation_id!: string;

  /** Required unless the legacy alias `touchpoint_id` is sent. */
  @ValidateIf((o: SubmitAttestationBody) => o.touchpoint_id === undefined || o.application_id !== undefined)
  @IsDefined()
  @IsIdOf('application')
  application_id?: string;

  /** Legacy alias of `application_id`; when both are sent they must be equal. */
  @IsOptional()
  @IsIdOf('application')
  touchpoint_id?: string;

  @IsDefined()
  @IsString()
  @MinLength(1)
  @MaxLength(MAX_AGENT_CLASS_LENGTH)
  agent_class!: string;

  @IsDefined()
  @IsString()
  @MinLength(1)
  @MaxLength(MAX_ACTION_CLASS_LENGTH)
  action_class!: string;

  @IsDefined()
  @IsString()
  @IsIn(ATTESTATION_DECISIONS, { message: `decision must be one of ${ATTESTATION_DECISIONS.join(', ')}` })
  decision!: AttestationDecision;

  @IsDefined()
  @IsString()
  @IsRFC3339({ message: 'decided_at must be an RFC 3339 date-time' })
  decided_at!: string;

  /** Positive integer, monotonic per agent_class. */
  @IsDefined()
  @IsInt()
  @Min(1)
  @Max(Number.MAX_SAFE_INTEGER)
  sequence_number!: number;

  @IsDefined()
  @IsString()
  @IsIn(LEGAL_BASES, { message: `legal_basis must be one of ${LEGAL_BASES.join(', ')}` })
  legal_basis!: LegalBasis;

  /** SHA-256 hex of the canonicalised decision inputs (64 hex digits, either case; stored lowercase). */
  @IsDefined()
  @IsString()
  @Matches(/^[0-9a-fA-F]{64}$/, { message: 'evidence_digest must be 64 hex characters (SHA-256)' })
  evidence_digest!: string;

  /** Free object surfaced in escalations and the dashboard; ≤ 4 KiB of canonical JSON. */
  @IsOptional()
  @IsObject()
  @MaxCanonicalBytes(MAX_CONTEXT_BYTES)
  context?: Record<string, unknown>;

  @IsOptional()
  @IsBoolean()
  requires_human_approval?: boolean;
}

/** `POST /api/v1/oap/attestations/heartbeat` (body not shown by the spec; every field optional). */
export class HeartbeatBody {
  /** Engine-reported health. */
  @IsOptional()
  @IsString()
  @IsIn(['ok', 'degraded'], { message: 'status must be ok or degraded' })
  status?: 'ok' | 'degraded';

  /** Engine or policy bundle version, ≤ 64 characters. */
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(64)
  engine_version?: string;
}

/** `GET /api/v1/oap/attestations/heartbeat`: pagination plus the silence threshold, seconds (default 300, 10–86 400). */
export class LivenessQuery extends PageQuery {
  @IsOptional()
  @Transform(({ value }: { value: unknown }) => (typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value))
  @IsInt()
  @Min(10)
  @Max(86_400)
  silent_after_seconds?: number;
}
