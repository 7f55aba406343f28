import { Nullable } from '@svc/server';
import { IsIn, IsInt, IsObject, IsString } from 'class-validator';

/** The wire shape of `escalationView`, published in the OpenAPI document. */
export class EscalationResponse {
  @IsString() id!: string;
  @IsIn(['escalation']) object!: 'escalation';
  @IsString() agent_id!: string;
  @IsString() authority_id!: string;
  @IsString() status!: string;
  @IsIn(['all', 'majority', 'threshold']) quorum_type!: 'all' | 'majority' | 'threshold';
  @IsString({ each: true }) approvers!: string[];
  @IsInt() approvals_needed!: number;
  /** Per approver: `approve` or `deny`. */
  @IsObject() votes!: Record<string, 'approve' | 'deny'>;
  @IsString() approval_ttl_at!: string;
  /** The grant request that escalated, as sent. */
  @IsObject() request!: unknown;
  @IsString() @Nullable() grant_id!: string | null;
  @IsString() created_at!: string;
  @IsString() @Nullable() resolved_at!: string | null;
  /** What the approver proposed instead, when the escalation was countered; null otherwise. */
  @IsObject() @Nullable() counter_proposal!: Record<string, unknown> | null;
}
