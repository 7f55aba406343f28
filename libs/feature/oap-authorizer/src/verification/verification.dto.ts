import { IsBoolean, IsOptional, IsString, MaxLength, MinLength } from 'class-validator';
import { IsIdOf } from '@svc/ids';

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
  @IsOptional() @IsString() @MaxLength(500) reason?: string;
}

/** `GET /.well-known/oap-attestation`. */
export class AttestationQuery {
  @IsString() @MinLength(1) @MaxLength(128) jti!: string;
  @IsString() @MinLength(1) @MaxLength(128) digest!: string;
}
