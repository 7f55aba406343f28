import { Nullable } from '@svc/server';
import { IsBoolean, IsIn, IsInt, IsObject, IsString } from 'class-validator';

/** An audit entry as served (`entryView`): `hash = SHA-256(bytes(previous_hash) || UTF-8(canonical))`. */
export class AuditRecordResponse {
  @IsIn(['audit_record']) object!: 'audit_record';
  @IsString() id!: string;
  @IsInt() index!: number;
  @IsString() type!: string;
  @IsString() @Nullable() application_id!: string | null;
  @IsString() created_at!: string;
  @IsString() previous_hash!: string;
  @IsString() hash!: string;
  /** The exact text the hash covers. */
  @IsString() canonical!: string;
}

/** A signed checkpoint as served (`checkpointView`); Merkle values are base64. */
export class AuditCheckpointResponse {
  @IsIn(['audit_checkpoint']) object!: 'audit_checkpoint';
  @IsInt() sequence!: number;
  @IsString() origin!: string;
  @IsInt() tree_size!: number;
  @IsString() root_hash!: string;
  @IsString() head_hash!: string;
  @IsString() created_at!: string;
  @IsString() kid!: string;
  @IsString() verifier_key!: string;
  @IsString() signed_note!: string;
  /** `{status (not_configured|pending|cosigned|superseded), name, cosigned_note, cosignature_timestamp, attempts}`. */
  @IsObject() witness!: object;
}

/** The result of verifying the chain (`verificationView`). */
export class AuditVerificationResponse {
  @IsIn(['audit_verification']) object!: 'audit_verification';
  @IsString() region!: string;
  @IsString() origin!: string;
  @IsBoolean() valid!: boolean;
  @IsString() @Nullable() genesis_hash!: string | null;
  @IsInt() verified_from_index!: number;
  @IsInt() verified_size!: number;
  @IsString() head_hash!: string;
  @IsInt() checkpoints_verified!: number;
  @IsInt() @Nullable() first_broken_index!: number | null;
  @IsString() @Nullable() reason!: string | null;
  @IsInt() @Nullable() checkpoint_sequence!: number | null;
  @IsInt({ each: true }) invalid_checkpoints!: readonly number[];
}
