import { Nullable } from '@svc/server';
import { Type } from 'class-transformer';
import { IsBoolean, IsIn, IsInt, IsObject, IsOptional, IsString, ValidateNested } from 'class-validator';

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

/** GET /api/v1/audit/entries/{id}/inclusion_proof: RFC 9162 inclusion of an entry under a checkpoint. */
export class AuditInclusionProofResponse {
  @IsIn(['audit_inclusion_proof']) object!: 'audit_inclusion_proof';
  @IsString() algorithm!: string;
  @ValidateNested() @Type(() => AuditRecordResponse) entry!: AuditRecordResponse;
  @IsInt() leaf_index!: number;
  @IsString() leaf_hash!: string;
  @IsInt() tree_size!: number;
  @IsString() root_hash!: string;
  /** Sibling hashes from the leaf up (base64). */
  @IsString({ each: true }) proof!: readonly string[];
  @ValidateNested() @Type(() => AuditCheckpointResponse) checkpoint!: AuditCheckpointResponse;
}

/** GET /api/v1/audit/consistency_proof: RFC 9162 consistency between two checkpoints. */
export class AuditConsistencyProofResponse {
  @IsIn(['audit_consistency_proof']) object!: 'audit_consistency_proof';
  @IsString() algorithm!: string;
  @ValidateNested() @Type(() => AuditCheckpointResponse) from!: AuditCheckpointResponse;
  @ValidateNested() @Type(() => AuditCheckpointResponse) to!: AuditCheckpointResponse;
  @IsInt() old_size!: number;
  @IsInt() new_size!: number;
  @IsString({ each: true }) proof!: readonly string[];
}

export class LogKeyResponse {
  @IsString() kid!: string;
  @IsString() status!: string;
  /** Signed-note verifier key (`<origin>+<hash>+<base64 key>`). */
  @IsString() verifier_key!: string;
}

export class WitnessResponse {
  @IsString() name!: string;
  @IsString() @Nullable() url!: string | null | undefined;
  @IsString() verifier_key!: string;
  @IsIn(['ok', 'unreachable']) status!: string;
  @IsString() @Nullable() last_success_at!: string | null;
}

/** GET /.well-known/witness-configuration: what a verifier or witness needs to follow this log. */
export class WitnessConfigurationResponse {
  @IsIn(['witness_configuration']) object!: 'witness_configuration';
  @IsString() region!: string;
  @IsString() origin!: string;
  @IsString() @Nullable() genesis_hash!: string | null;
  @IsInt() checkpoint_interval_seconds!: number;
  @ValidateNested({ each: true }) @Type(() => LogKeyResponse) log_keys!: LogKeyResponse[];
  @ValidateNested({ each: true }) @Type(() => WitnessResponse) witnesses!: WitnessResponse[];
  @ValidateNested() @Type(() => AuditCheckpointResponse) @Nullable() latest_checkpoint!: AuditCheckpointResponse | null;
  /** How to verify: hash chain, canonical form, Merkle tree, note formats and endpoints. */
  @IsObject() verification!: object;
}

/** GET /.well-known/transparency/…: how many entries name an application or agent, and the checkpoints covering them. */
export class AuditTransparencyResponse {
  @IsIn(['audit_transparency']) object!: 'audit_transparency';
  @IsOptional() @IsString() application_id?: string;
  @IsOptional() @IsString() agent_id?: string;
  @IsString() region!: string;
  @IsString() origin!: string;
  @IsInt() entry_count!: number;
  @IsInt() first_index!: number;
  @IsInt() last_index!: number;
  @ValidateNested({ each: true }) @Type(() => AuditCheckpointResponse) checkpoints!: AuditCheckpointResponse[];
  @IsObject() verification!: object;
}
