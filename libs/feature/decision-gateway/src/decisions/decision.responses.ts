import { Nullable } from '@svc/server';
import { IsBoolean, IsIn, IsInt, IsObject, IsOptional, IsString } from 'class-validator';
import { DECISION_KINDS, DELIVERY_MODES, type DecisionKind, type DeliveryMode } from './decision';

/** The wire shape of `mintedView` (POST /api/v1/decisions), published in the OpenAPI document. */
export class DecisionSessionCreatedResponse {
  @IsIn(['decision_session']) object!: 'decision_session';
  @IsString() session_token!: string;
  @IsIn([...DECISION_KINDS]) kind!: DecisionKind;
  @IsString() status!: string;
  @IsString() decision_url!: string;
  /** Consent sessions only. */
  @IsString() @Nullable() embed_url!: string | null;
  @IsString() deadline!: string;
  @IsIn([...DELIVERY_MODES]) delivery_mode!: DeliveryMode;
  @IsString() @Nullable() flow_id!: string | null;
  @IsInt() @Nullable() flow_version!: number | null;
  @IsString() created_at!: string;
  /** Approvals only (= deadline). */
  @IsOptional() @IsString() approval_ttl_at?: string;
}

/** The wire shape of `sessionView` (the application's read of its session), published in the OpenAPI document. */
export class DecisionSessionResponse {
  @IsIn(['decision_session']) object!: 'decision_session';
  @IsString() @Nullable() session_token!: string | null;
  @IsIn([...DECISION_KINDS]) kind!: DecisionKind;
  @IsString() status!: string;
  @IsString() @Nullable() outcome!: string | null;
  @IsString() decision_url!: string;
  @IsString() @Nullable() embed_url!: string | null;
  @IsString() deadline!: string;
  @IsIn([...DELIVERY_MODES]) delivery_mode!: DeliveryMode;
  @IsString() @Nullable() embed_origin!: string | null;
  @IsString() @Nullable() flow_id!: string | null;
  @IsInt() @Nullable() flow_version!: number | null;
  @IsString() @Nullable() consent_path!: string | null;
  @IsString({ each: true }) purposes!: string[];
  @IsString() @Nullable() principal_id!: string | null;
  @IsString() principal_binding!: string;
  @IsString() @Nullable() trigger_type!: string | null;
  @IsString() @Nullable() reference!: string | null;
  @IsObject() @Nullable() quorum!: { type: string; required: number | null; participants: unknown } | null;
  @IsObject() @Nullable() proposal!: Record<string, unknown> | null;
  @IsObject() @Nullable() counter_proposal!: Record<string, unknown> | null;
  @IsString() created_at!: string;
  @IsString() @Nullable() completed_at!: string | null;
  @IsBoolean() exchanged!: boolean;
}
