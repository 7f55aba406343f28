import { Nullable } from '@svc/server';
import { IsArray, IsBoolean, IsIn, IsInt, IsObject, IsString } from 'class-validator';
import { CHANGE_REQUEST_STATUSES, GOVERNED_ACTIONS, type ChangeRequest, type GovernancePolicy } from './governance';
import { REGIME_DEFINITIONS, REGIMES, type ComplianceModule } from './regimes';

/** What an enabled module enforces. */
export class ModuleRulesResponse {
  /** Withdrawal as easy as consent: a consent flow's revocation_policy must be any_time. Always on. */
  @IsBoolean() withdrawal_parity!: boolean;
  /** A consent flow must establish this age (required date_of_birth / age_confirmation field, or identity_verification). */
  @IsInt() minimum_age!: number;
  /** Longest retention_period a flow may declare (ISO 8601 duration). */
  @IsString() retention_ceiling!: string;
  /** Purpose keys that need explicit, unbundled consent (mechanism consent, not required). */
  @IsArray() @IsString({ each: true }) sensitive_purposes!: string[];
}

/** A regime module of the application. */
export class ModuleResponse {
  @IsIn(['module']) object!: 'module';
  @IsIn(REGIMES) regime!: string;
  @IsString() name!: string;
  @IsBoolean() enabled!: boolean;
  /** What receipts state as `jurisdiction` under this regime. */
  @IsString() jurisdiction!: string;
  @IsObject() rules!: ModuleRulesResponse;
  /** The article behind each rule. */
  @IsObject() citations!: object;
  @IsString() @Nullable() updated_at!: string | null;
}

/** The application's governance policy. */
export class GovernancePolicyResponse {
  @IsIn(['governance_policy']) object!: 'governance_policy';
  @IsString() application_id!: string;
  /** Per governed action (activate_flows, change_modules, rotate_keys, change_governance): the actor ids holding it, or null for every credential. */
  @IsObject() roles!: object;
  @IsArray() @IsIn(GOVERNED_ACTIONS, { each: true }) four_eyes!: string[];
  /** 0 until a policy is set. */
  @IsInt() version!: number;
  @IsString() @Nullable() updated_at!: string | null;
  @IsString() @Nullable() audit_entry_id!: string | null;
}

/** A governed change waiting for (or given) its second approver. */
export class ChangeRequestResponse {
  @IsIn(['change_request']) object!: 'change_request';
  @IsString() id!: string;
  @IsIn(GOVERNED_ACTIONS) action!: string;
  /** A regime (change_modules), a flow id (activate_flows), `api_tokens` (rotate_keys) or `policy` (change_governance). */
  @IsString() target!: string;
  @IsObject() changes!: object;
  /** pending → approved (then applied when carried out) | applied | rejected | expired. */
  @IsIn(CHANGE_REQUEST_STATUSES) status!: string;
  @IsString() requested_by!: string;
  @IsString() @Nullable() reason!: string | null;
  @IsString() @Nullable() decided_by!: string | null;
  /** `{step, actor_id, at, audit_entry_id}` for each step: requested, approved / rejected, applied, expired. */
  @IsArray() @IsObject({ each: true }) steps!: object[];
  @IsString() created_at!: string;
  @IsString() expires_at!: string;
  @IsString() @Nullable() decided_at!: string | null;
  @IsString() @Nullable() applied_at!: string | null;
}

export function moduleView(module: ComplianceModule): Record<string, unknown> {
  const definition = REGIME_DEFINITIONS[module.regime];
  return {
    object: 'module',
    regime: module.regime,
    name: definition.name,
    enabled: module.enabled,
    jurisdiction: definition.jurisdiction,
    rules: { ...module.rules, sensitive_purposes: [...module.rules.sensitive_purposes] },
    citations: { ...definition.citations },
    updated_at: module.updatedAt?.toISOString() ?? null,
  } satisfies Record<keyof ModuleResponse, unknown>;
}

export function policyView(applicationId: string, policy: GovernancePolicy): Record<string, unknown> {
  return {
    object: 'governance_policy',
    application_id: applicationId,
    roles: Object.fromEntries(
      GOVERNED_ACTIONS.map((action) => [action, policy.roles[action] === null ? null : [...(policy.roles[action] ?? [])]]),
    ),
    four_eyes: [...policy.four_eyes],
    version: policy.version,
    updated_at: policy.updatedAt?.toISOString() ?? null,
    audit_entry_id: policy.auditEntryId,
  } satisfies Record<keyof GovernancePolicyResponse, unknown>;
}

export function changeRequestView(request: ChangeRequest): Record<string, unknown> {
  return {
    object: 'change_request',
    id: request.id,
    action: request.action,
    target: request.target,
    changes: request.changes,
    status: request.status,
    requested_by: request.requestedBy,
    reason: request.reason,
    decided_by: request.decidedBy,
    steps: request.steps.map((step) => ({ ...step })),
    created_at: request.createdAt.toISOString(),
    expires_at: request.expiresAt.toISOString(),
    decided_at: request.decidedAt?.toISOString() ?? null,
    applied_at: request.appliedAt?.toISOString() ?? null,
  } satisfies Record<keyof ChangeRequestResponse, unknown>;
}
