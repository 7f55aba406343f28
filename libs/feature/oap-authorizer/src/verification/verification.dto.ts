import { IsBoolean, IsIn, IsOptional, IsString, MaxLength, MinLength } from 'class-validator';
import { IsIdOf } from '@svc/ids';
import { REVOCATION_REASON_CODES, type RevocationReasonCode } from './revocation-reason';

/** `POST /.well-known/svc-verify`. */
export class VerifyReceiptBody {
  @IsString() @MinLength(1) @MaxLength(16_384) receipt!: string;
  @IsOptional() @IsBoolean() action_completed?: boolean;
}

/** `POST /.well-known/svc-decode`. */
export class DecodeReceiptBody {
  @IsString() @MinLength(1) @MaxLength(16_384) receipt!: string;
}

/** `POST /api/v1/oap/revocations`. */
export class RevokeGrantBody {
  @IsIdOf('oap_grant') grant_id!: string;
  /** Published on the anonymous revocation list; `unspecified` when absent. */
  @IsOptional() @IsIn(REVOCATION_REASON_CODES) reason_code?: RevocationReasonCode;
  /** Free text for the application's own records; never published. */
  @IsOptional() @IsString() @MaxLength(500) reason?: string;
}

/** `GET /.well-known/oap-attestation`. */
export class AttestationQuery {
  @IsString() @MinLength(1) @MaxLength(128) jti!: string;
  @IsString() @MinLength(1) @MaxLength(128) digest!: string;
}
