import { Type } from 'class-transformer';
import { Allow, IsIn, IsInt, IsOptional, IsString, Min, ValidateNested } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import type { DenialCategory } from './checks/cascade-step';

/** Every denial category of the cascade (a new one fails the type-check here until listed). */
const DENIAL_CATEGORIES = [
  'authorization_denied',
  'action_not_prohibited',
  'intent_denied',
  'max_actions',
  'trajectory_denied',
] as const satisfies readonly DenialCategory[];
type AllListed<T extends readonly string[]> = Exclude<DenialCategory, T[number]> extends never ? true : never;
const everyCategoryListed: AllListed<typeof DENIAL_CATEGORIES> = true;
void everyCategoryListed;

/** 201 of POST /api/v1/grants: the grant is allowed and its DPoP-bound agent token issued. */
export class GrantAllowedResponse {
  @IsIn(['allow']) decision!: 'allow';
  @IsString() grant_id!: string;
  /** `ra_agent_…`, usable only with DPoP proofs of the agent key. */
  @IsString() agent_token!: string;
  @IsIn(['DPoP']) token_type!: 'DPoP';
  /** The signed runtime receipt (JWT) of the grant. */
  @IsString() grant_attestation!: string;
  /** The receipt's issuer; typed loosely because it is read back from the receipt's claims. */
  @IsString() iss!: unknown;
  @IsString() oap_ver!: string;
  @IsString() valid_until!: string;
}

/** 202 of POST /api/v1/grants: the request waits for human approvers. */
export class GrantEscalatedResponse {
  @IsIn(['escalate']) decision!: 'escalate';
  @IsString() escalation_id!: string;
  @IsString() escalation_url!: string;
  @IsString() decision_url!: string;
  @IsString() session_token!: string;
  @IsString() approval_ttl_at!: string;
  @IsIn(['all', 'majority', 'threshold']) quorum_type!: 'all' | 'majority' | 'threshold';
  @IsInt() approvals_needed!: number;
  @IsInt() cascade_step!: number;
}

/**
 * 403 of POST /api/v1/grants: the cascade denied the request. The error envelope's `message` and
 * `reason_code`, with the decision, the denial category and the cascade step that denied it.
 */
export class GrantDeniedResponse {
  @IsString() @JSONSchema({ examples: ['Amount exceeds the per-action ceiling of 100.00'] }) message!: string;
  /** The denying step's reason, e.g. `value_exceeds_per_action`, `authority_not_found`. */
  @IsString() @JSONSchema({ examples: ['value_exceeds_per_action'] }) reason_code!: string;
  @IsIn(['deny']) decision!: 'deny';
  @IsIn([...DENIAL_CATEGORIES]) @JSONSchema({ examples: ['intent_denied'] }) denial_category!: DenialCategory;
  @IsInt() @Min(1) @JSONSchema({ examples: [7] }) cascade_step!: number;
}

/** 200 of POST /api/v1/grants/{grant_id}/attestation: the grant's receipt re-signed with the new attestation. */
export class AttestationRefreshedResponse {
  @IsString() grant_id!: string;
  @IsString() grant_attestation!: string;
  /** The attestation overlay the new receipt carries. */
  @Allow() agent_attestation!: unknown;
  @IsString() retained_until!: string;
}

/** 201 (new) or 200 (already revoked) of POST /api/v1/oap/revocations. */
export class RevocationResponse {
  @IsIn(['revocation']) object!: 'revocation';
  @IsString() grant_id!: string;
  @IsString() reason_code!: string;
  @IsString() reason!: string;
  @IsString() revoked_at!: string;
}

/**
 * 201 of POST /api/v1/grants for an agent class a hybrid application routes to `oversight`: the
 * application's own policy engine (OpenID AuthZEN 1.0) allowed the request, and the service
 * witnessed its answer. No agent token is issued: the witness receipt (`iss_role` witness) is
 * the proof of the customer's decision.
 */
export class GrantWitnessedResponse {
  @IsIn(['allow']) decision!: 'allow';
  @IsIn(['oversight']) route!: 'oversight';
  /** The witnessed attestation (`att_<region>_…`). */
  @IsString() attestation_id!: string;
  /** The witness receipt (Ed25519 JWS, `iss_role` witness, `decision` allow). */
  @IsString() witness_receipt!: string;
  /** The attestation's sequence number within the agent class. */
  @IsInt() @Min(1) sequence_number!: number;
  /** `authzen:<engine origin>`. */
  @IsString() @JSONSchema({ examples: ['authzen:https://pdp.example.com'] }) policy_ref!: string;
  @IsString() iss!: string;
  @IsString() oap_ver!: string;
  @IsString() valid_until!: string;
}

/** Reason codes of a hybrid application's oversight route denying a grant request (fail closed). */
export const OVERSIGHT_DENIAL_REASONS = ['policy_engine_denied', 'policy_engine_unavailable', 'policy_engine_not_configured'] as const;
export type OversightDenialReason = (typeof OVERSIGHT_DENIAL_REASONS)[number];

/** `detail.reason` values of `policy_engine_unavailable` / `policy_engine_not_configured`. */
export const OVERSIGHT_UNAVAILABLE_REASONS = [
  'timeout',
  'unreachable',
  'target_refused',
  'invalid_response',
  'witness_unavailable',
  'no_engine',
  'attester_inactive',
] as const;

/** `detail` of an oversight denial the engine did not decide. */
export class OversightDenialDetail {
  @IsIn([...OVERSIGHT_UNAVAILABLE_REASONS]) @JSONSchema({ examples: ['timeout'] }) reason!: string;
}

/**
 * 403 of POST /api/v1/grants on the oversight route: the engine denied (`policy_engine_denied`,
 * witnessed: `attestation_id` and `witness_receipt`), or it could not decide and the request
 * fails closed (`policy_engine_unavailable`, `policy_engine_not_configured`, with `detail.reason`).
 */
export class GrantOversightDeniedResponse {
  @IsString() @JSONSchema({ examples: ['The policy engine could not decide the request'] }) message!: string;
  @IsIn([...OVERSIGHT_DENIAL_REASONS]) @JSONSchema({ examples: ['policy_engine_unavailable'] }) reason_code!: OversightDenialReason;
  @IsOptional() @ValidateNested() @Type(() => OversightDenialDetail) detail?: OversightDenialDetail;
  @IsIn(['deny']) decision!: 'deny';
  @IsIn(['oversight_denied']) denial_category!: 'oversight_denied';
  @IsIn(['oversight']) route!: 'oversight';
  @IsOptional() @IsString() attestation_id?: string;
  @IsOptional() @IsString() witness_receipt?: string;
}
