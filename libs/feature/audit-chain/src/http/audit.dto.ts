import { Transform } from 'class-transformer';
import { IsDefined, IsInt, IsOptional, Max, Min } from 'class-validator';
import { PageQuery } from '@svc/server';

const toInt = ({ value }: { value: unknown }): unknown => (typeof value === 'string' && /^\d{1,16}$/.test(value) ? Number(value) : value);

/** Query of GET /api/v1/audit/verify. */
export class VerifyQuery {
  /** Sequence of a stored checkpoint to start from (its signature is checked); genesis when absent. */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(Number.MAX_SAFE_INTEGER)
  from_checkpoint?: number;
}

/** Query of GET /api/v1/audit/entries. */
export class EntriesQuery extends PageQuery {}

/** Query of GET /api/v1/audit/checkpoints. */
export class CheckpointsQuery extends PageQuery {}

/** Query of GET /api/v1/audit/entries/:id/inclusion_proof. */
export class InclusionProofQuery {
  /** Checkpoint to prove against; the latest one covering the entry when absent. */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(Number.MAX_SAFE_INTEGER)
  checkpoint?: number;
}

/** Query of GET /api/v1/audit/consistency_proof. */
export class ConsistencyProofQuery {
  /** Sequence of the older checkpoint. */
  @IsDefined()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(Number.MAX_SAFE_INTEGER)
  from!: number;

  /** Sequence of the newer checkpoint. */
  @IsDefined()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(Number.MAX_SAFE_INTEGER)
  to!: number;
}
