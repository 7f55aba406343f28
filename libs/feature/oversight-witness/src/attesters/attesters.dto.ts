import {
  ArrayMaxSize,
  ArrayUnique,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
} from 'class-validator';
import { validationError } from '@svc/errors';
import { MAX_ROTATION_OVERLAP_SECONDS, OPERATOR_GATED_PERMISSIONS, SELF_SERVICE_PERMISSIONS, type AttesterPermission } from './attester';

/** `POST /api/v1/trusted_attesters`. */
export class CreateAttesterBody {
  /** Display name, 1–200 characters. */
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  name!: string;

  /**
   * Default `attestations:submit` + `attestations:heartbeat`. `revocations:trigger` is operator-
   * gated: ask for it with an elevation request.
   */
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(SELF_SERVICE_PERMISSIONS.length)
  @ArrayUnique()
  @IsIn(SELF_SERVICE_PERMISSIONS, {
    each: true,
    message: `permissions must be among ${SELF_SERVICE_PERMISSIONS.join(', ')} (revocations:trigger needs an elevation request)`,
  })
  permissions?: AttesterPermission[];

  /** Scope the attester to this application (default false). */
  @IsOptional()
  @IsBoolean()
  scoped_to_application?: boolean;
}

/** `POST /api/v1/trusted_attesters/:id/rotate`. */
export class RotateAttesterBody {
  /** How long the previous token keeps working, seconds (default 86 400 = 24 h; 0–604 800). */
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(MAX_ROTATION_OVERLAP_SECONDS)
  overlap_seconds?: number;
}

/** `POST /api/v1/trusted_attesters/:id/elevation_requests`. */
export class RequestElevationBody {
  @IsIn(OPERATOR_GATED_PERMISSIONS, { message: `permission must be one of ${OPERATOR_GATED_PERMISSIONS.join(', ')}` })
  permission!: AttesterPermission;

  /** Why the engine needs it, for the operator; 10–2000 characters. */
  @IsString()
  @MinLength(10)
  @MaxLength(2000)
  @Matches(/\S/, { message: 'rationale must not be blank' })
  rationale!: string;
}

/**
 * Bodies of suspend / unsuspend take no fields: anything sent is refused (400 `invalid_request`
 * naming the first field) rather than silently ignored.
 */
export function refuseBodyFields(body: unknown): void {
  if (body === undefined || body === null) return;
  if (typeof body !== 'object' || Array.isArray(body))
    throw validationError([{ field: 'body', constraint: 'isObject', message: 'body must be a JSON object' }]);
  const field = Object.keys(body)[0];
  if (field !== undefined) throw validationError([{ field, constraint: 'whitelistValidation', message: `${field} is not a known field` }]);
}

/** Path parameter shape of an attester id: `tatr_<region>_<base32(20)>`. */
export const ATTESTER_ID_PATTERN = /^tatr_(us|eu|ap|dev)_[a-z2-7]{20}$/;
