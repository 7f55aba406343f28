import { Nullable } from '@svc/server';
import { Type } from 'class-transformer';
import { Allow, IsBoolean, IsIn, IsObject, IsOptional, IsString, ValidateNested } from 'class-validator';

export class ReceiptSignatureCheckResponse {
  @IsBoolean() valid!: boolean;
  @IsOptional() @IsString() reason_code?: string;
}

export class ReceiptRevocationCheckResponse {
  /** `active`, `revoked`, `unknown`, or `not_checked` when the signature failed. */
  @IsString() status!: string;
  @IsString() @Nullable() revoked_at!: string | null;
}

export class ReceiptConsumptionResponse {
  @IsBoolean() acknowledged!: boolean;
  @IsString() grant_id!: string;
  @IsString() consumed_at!: string;
}

/** 200 of POST /.well-known/svc-verify: the signature, then the grant's revocation and one-shot status. */
export class VerifyReceiptResponse {
  @IsBoolean() valid!: boolean;
  /** Why the receipt is not valid (`grant_revoked`, `receipt_consumed`, a signature code…). */
  @IsOptional() @IsString() reason_code?: string;
  @ValidateNested() @Type(() => ReceiptSignatureCheckResponse) signature!: ReceiptSignatureCheckResponse;
  @ValidateNested() @Type(() => ReceiptRevocationCheckResponse) revocation!: ReceiptRevocationCheckResponse;
  @IsOptional() @ValidateNested() @Type(() => ReceiptConsumptionResponse) consumption?: ReceiptConsumptionResponse;
  @IsString() @Nullable() grant_id!: string | null;
  @Allow() iss_role!: unknown;
  /** The verified claims; null when the signature failed. */
  @IsObject() @Nullable() claims!: Record<string, unknown> | null;
}

/** 200 of POST /.well-known/svc-decode: the receipt's header and payload, explicitly unverified. */
export class DecodeReceiptResponse {
  @IsIn([false]) verified!: false;
  @IsObject() header!: Record<string, unknown>;
  @IsObject() payload!: Record<string, unknown>;
}

/** One entry of GET /.well-known/oap-revocation-list. */
export class RevocationListEntryResponse {
  @IsString() grant_id!: string;
  @IsString() reason_code!: string;
  @IsString() revoked_at!: string;
}

/** 200 of GET /.well-known/oap-attestation: the attestation token behind a receipt overlay. */
export class AttestationTokenResponse {
  @IsString() format!: string;
  @IsString() token!: string;
}
