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

/** The answer of POST /api/v1/decisions/principal_assertions. */
export class PrincipalAssertionResponse {
  @IsIn(['principal_assertion']) object!: 'principal_assertion';
  /** `pas_…`, single use. */
  @IsString() principal_assertion!: string;
  @IsString() principal_id!: string;
  /** Null: valid for any flow. */
  @IsString() @Nullable() flow_id!: string | null;
  @IsString() expires_at!: string;
}

/** The answer of POST /api/v1/decisions/consent_tokens/verify. */
export class ConsentTokenVerdictResponse {
  /** True for the first verification of a fulfilled token, which clears it. */
  @IsBoolean() valid!: boolean;
  @IsString() status!: string;
}

/** The answer of POST /api/v1/decisions/{session_token}/exchange: the outcome, once. */
export class DecisionOutcomeResponse {
  @IsIn(['decision_outcome']) object!: 'decision_outcome';
  @IsString() session_token!: string;
  @IsIn([...DECISION_KINDS]) kind!: DecisionKind;
  @IsString() status!: string;
  @IsString() @Nullable() outcome!: string | null;
  @IsString() @Nullable() flow_id!: string | null;
  @IsInt() @Nullable() flow_version!: number | null;
  /** The granted purposes of a granted consent; empty otherwise. */
  @IsString({ each: true }) purposes!: string[];
  @IsString() @Nullable() principal_id!: string | null;
  /** `api_token`, `principal_assertion`, `authority`, `hosted_sign_in` or `unbound`. */
  @IsString() principal_binding!: string;
  @IsString() @Nullable() reference!: string | null;
  @IsObject() @Nullable() counter_proposal!: Record<string, unknown> | null;
  @IsString() @Nullable() completed_at!: string | null;
}

/** `pageView` (`decision_page_state`): what the hosted decision page reads with the session token alone. */
export class DecisionPageStateResponse {
  @IsIn(['decision_page_state']) object!: 'decision_page_state';
  @IsIn([...DECISION_KINDS]) kind!: DecisionKind;
  @IsString() status!: string;
  @IsString() @Nullable() outcome!: string | null;
  @IsString() deadline!: string;
  @IsIn([...DELIVERY_MODES]) delivery_mode!: DeliveryMode;
  @IsString() @Nullable() flow_id!: string | null;
  @IsInt() @Nullable() flow_version!: number | null;
  @IsString() @Nullable() consent_path!: string | null;
  @IsString() @Nullable() trigger_type!: string | null;
  @IsObject() @Nullable() proposal!: Record<string, unknown> | null;
  /** `{type, required, participants}` of approvals; null otherwise. */
  @IsObject() @Nullable() quorum!: { type: string; required: number | null; participants: number } | null;
  @IsString({ each: true }) allowed_actions!: readonly string[];
}

/** 200 of a decision page move: the new state, plus the tokens a completing move hands out. */
export class DecisionTransitionResponse extends DecisionPageStateResponse {
  /** On a fulfilled consent: the single-use consent token (5 minutes). */
  @IsOptional() @IsString() consent_token?: unknown;
  /** When the decision completes: exchanged once by the application's server for the outcome. */
  @IsOptional() @IsString() exchange_token?: string;
}

/** `inboxRowView`: a pending decision of a principal. */
export class InboxRowResponse {
  @IsString() session_token!: string | null;
  @IsIn([...DECISION_KINDS]) kind!: DecisionKind;
  @IsString() status!: string;
  @IsString() application_id!: string;
  @IsString() @Nullable() trigger_type!: string | null;
  @IsString() @Nullable() flow_id!: string | null;
  @IsString() @Nullable() reference!: string | null;
  @IsString() deadline!: string;
  @IsString() created_at!: string;
  @IsString() decision_url!: string;
}
