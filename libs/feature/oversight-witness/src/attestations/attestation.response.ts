import { Nullable } from '@svc/server';
import { Type } from 'class-transformer';
import { Allow, IsBoolean, IsIn, IsInt, IsOptional, IsString, ValidateNested } from 'class-validator';
import { ATTESTATION_DECISIONS, type AttestationDecision, type AttestationStatus } from './attestation';

const ATTESTATION_STATUSES = [
  'witnessed',
  'pending_approval',
  'approved',
  'denied',
  'countered',
] as const satisfies readonly AttestationStatus[];

/** The wire shape of `attestationView` (`attestation`). */
export class AttestationResponse {
  @IsString() id!: string;
  @IsIn(['attestation']) object!: 'attestation';
  @IsString() attestation_id!: string;
  @IsString() received_at!: string;
  @IsInt() sequence_number!: number;
  @IsBoolean() sequence_gap!: boolean;
  @IsInt() @Nullable() expected_sequence_number!: number | null;
  @IsIn([...ATTESTATION_DECISIONS]) decision!: AttestationDecision;
  @IsIn([...ATTESTATION_STATUSES]) status!: AttestationStatus;
  @IsBoolean() idempotent_replay!: boolean;
}

/** `escalationView`: the approval a human must give; URL and token only in the first answer. */
export class AttestationEscalationResponse {
  @IsIn([...ATTESTATION_STATUSES]) status!: AttestationStatus;
  @IsString() approval_ttl_at!: string;
  @IsOptional() @IsString() decision_url?: string;
  @IsOptional() @IsString() session_token?: string;
}

/** `counterView`: a human's counter-proposal to an earlier attestation of the agent class. */
export class CounterProposalResponse {
  @IsString() attestation!: string;
  @IsString() attestation_id!: string;
  @Allow() counter_proposal!: unknown;
  @IsString() @Nullable() countered_at!: string | null;
}

/** 201/200 of POST /api/v1/oap/attestations. */
export class SubmittedAttestationResponse {
  @ValidateNested() @Type(() => AttestationResponse) attestation!: AttestationResponse;
  /** The witness receipt (EdDSA JWS, `typ: oap+jwt`). */
  @IsString() receipt!: string;
  @IsOptional() @ValidateNested() @Type(() => AttestationEscalationResponse) escalation?: AttestationEscalationResponse;
  @IsOptional() @ValidateNested({ each: true }) @Type(() => CounterProposalResponse) counter_proposals?: CounterProposalResponse[];
}

/** `attestationDetailView`'s attestation: every recorded field. */
export class AttestationDetailResponse extends AttestationResponse {
  @IsString() application_id!: string;
  @IsString() attester_id!: string;
  @IsString() agent_class!: string;
  @IsString() action_class!: string;
  @IsString() decided_at!: string;
  @IsString() legal_basis!: string;
  @IsString() evidence_digest!: string;
  @Allow() context!: unknown;
  @IsBoolean() requires_human_approval!: boolean;
  @IsString() @Nullable() resolved_at!: string | null;
  @Allow() counter_proposal!: unknown;
}

/** 200 of GET /api/v1/oap/attestations/{attestation_id}. */
export class AttestationReadResponse {
  @ValidateNested() @Type(() => AttestationDetailResponse) attestation!: AttestationDetailResponse;
  @IsString() receipt!: string;
  /** The receipt of the human resolution, once resolved. */
  @IsString() @Nullable() resolution_receipt!: string | null;
}

/** `{last_heartbeat_at, last_heartbeat, silent_after_seconds, silent}` of an attester. */
export class LivenessResponse {
  @IsString() @Nullable() last_heartbeat_at!: string | null;
  @Allow() last_heartbeat!: unknown;
  @IsInt() silent_after_seconds!: number;
  @IsBoolean() silent!: boolean;
}

/** One row of GET /api/v1/oap/attestations/heartbeat. */
export class AttesterLivenessResponse extends LivenessResponse {
  @IsString() attester_id!: string;
  @IsString() name!: string;
  @IsString() status!: string;
}

export class HeartbeatRecordedResponse {
  @IsString() attester_id!: string;
  @IsString() @Nullable() received_at!: string | undefined;
  @IsString() status!: string;
}

/** 200 of POST /api/v1/oap/attestations/heartbeat. */
export class HeartbeatResponse {
  @ValidateNested() @Type(() => HeartbeatRecordedResponse) heartbeat!: HeartbeatRecordedResponse;
}
