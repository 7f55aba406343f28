import { Nullable } from '@svc/server';
import { IsArray, IsIn, IsInt, IsObject, IsString } from 'class-validator';
import type { CleanRoom, CleanRoomComparison } from './clean-rooms.repository';

/** A clean room as either party sees it. */
export class CleanRoomResponse {
  @IsIn(['clean_room']) object!: 'clean_room';
  @IsString() id!: string;
  @IsString() name!: string;
  @IsString() initiator_application_id!: string;
  @IsString() partner_application_id!: string;
  @IsString() initiator_purpose!: string;
  /** Set when the partner accepts. */
  @IsString() @Nullable() partner_purpose!: string | null;
  @IsInt() min_cohort_size!: number;
  /** proposed → active (partner accepted) | declined. */
  @IsIn(['proposed', 'active', 'declined']) status!: string;
  /** `initiator` or `partner`: which side the caller is. */
  @IsIn(['initiator', 'partner']) role!: string;
  /** Audit chain entries of the proposal and the decision. */
  @IsArray() @IsString({ each: true }) audit_entry_ids!: string[];
  @IsString() created_at!: string;
  @IsString() @Nullable() decided_at!: string | null;
}

/** One comparison: counts only; a suppressed count is null and named in `suppressed`. */
export class CleanRoomComparisonResponse {
  @IsIn(['clean_room_comparison']) object!: 'clean_room_comparison';
  @IsString() clean_room_id!: string;
  /** `{initiator_audience, partner_audience, overlap}`, each an integer or null when suppressed. */
  @IsObject() counts!: object;
  @IsArray() @IsString({ each: true }) suppressed!: string[];
  @IsInt() min_cohort_size!: number;
  @IsString() requested_by!: string;
  @IsString() audit_entry_id!: string;
  @IsString() computed_at!: string;
}

export function cleanRoomView(room: CleanRoom, applicationId: string): Record<string, unknown> {
  return {
    object: 'clean_room',
    id: room.id,
    name: room.name,
    initiator_application_id: room.initiatorApplicationId,
    partner_application_id: room.partnerApplicationId,
    initiator_purpose: room.initiatorPurpose,
    partner_purpose: room.partnerPurpose,
    min_cohort_size: room.minCohortSize,
    status: room.status,
    role: room.initiatorApplicationId === applicationId ? 'initiator' : 'partner',
    audit_entry_ids: [...room.auditEntryIds],
    created_at: room.createdAt.toISOString(),
    decided_at: room.decidedAt?.toISOString() ?? null,
  } satisfies Record<keyof CleanRoomResponse, unknown>;
}

export function comparisonView(comparison: CleanRoomComparison, minCohortSize: number): Record<string, unknown> {
  return {
    object: 'clean_room_comparison',
    clean_room_id: comparison.cleanRoomId,
    counts: { ...comparison.counts },
    suppressed: [...comparison.suppressed],
    min_cohort_size: minCohortSize,
    requested_by: comparison.requestedBy,
    audit_entry_id: comparison.auditEntryId,
    computed_at: comparison.computedAt.toISOString(),
  } satisfies Record<keyof CleanRoomComparisonResponse, unknown>;
}
