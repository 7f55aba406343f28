import { Nullable } from '@svc/server';
import { IsArray, IsIn, IsObject, IsString } from 'class-validator';
import { ADEQUACY_VERDICTS } from './adequacy';
import { DATA_CATEGORIES, LAWFUL_BASES, TRANSFER_CASES } from '@svc/contracts';

/** One crossing of the transfer register. */
export class TransferResponse {
  @IsIn(['transfer']) object!: 'transfer';
  @IsString() id!: string;
  @IsIn(TRANSFER_CASES) transfer_case!: string;
  @IsArray() @IsIn(DATA_CATEGORIES, { each: true }) data_categories!: string[];
  @IsString() from_country!: string;
  @IsString() to_country!: string;
  @IsString() recipient!: string;
  @IsString() purpose!: string;
  @IsIn(LAWFUL_BASES) lawful_basis!: string;
  @IsString() @Nullable() derogation_article!: string | null;
  /** The destination's standing in the adequacy table: eea, adequate, partial or not_adequate. */
  @IsIn(ADEQUACY_VERDICTS) adequacy_verdict!: string;
  /** The adequacy decision behind the verdict, when one exists. */
  @IsString() @Nullable() adequacy_decision!: string | null;
  @IsString() adequacy_table_version!: string;
  @IsString() reference!: string;
  /** Receipts whose data crosses. */
  @IsArray() @IsString({ each: true }) record_ids!: string[];
  @IsString() recorded_at!: string;
  /** The audit chain entry recording this crossing. */
  @IsString() audit_entry_id!: string;
}

/** The region's residency posture. */
export class ResidencyPostureResponse {
  @IsIn(['residency_posture']) object!: 'residency_posture';
  @IsString() region!: string;
  @IsString() country!: string;
  @IsString() generated_at!: string;
  /** `{component, setting, host, country, status (verified|declared|violated), check}` per part of the deployment. */
  @IsArray() @IsObject({ each: true }) components!: object[];
  /** `{country, data_category, storage_locations, processing_locations, status, checks}`. */
  @IsArray() @IsObject({ each: true }) data!: object[];
}

/** A signed evidence package: `package` is the compact JWS (`typ` `svc-evidence+jws`) to hand over and verify offline. */
export class EvidencePackageResponse {
  @IsIn(['evidence_package']) object!: 'evidence_package';
  @IsIn(['transfer_register', 'residency_posture']) kind!: string;
  @IsString() kid!: string;
  /** The signed package: verify with `svc-audit verify-evidence --package <file>`. */
  @IsString() package!: string;
  /** The signed content, decoded for reading. */
  @IsObject() content!: object;
}
