import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  ArrayUnique,
  IsArray,
  IsDefined,
  IsIn,
  IsInt,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
  ValidateNested,
} from 'class-validator';
import { IsIdOf } from '@svc/ids';
import { PageQuery } from '@svc/server';
import { CONSENT_ACTIONS } from './consent-transitions';
import { MAX_ASSERTION_TTL_SECONDS, PRINCIPAL_ASSERTION } from './principal-assertions';
import {
  DECISION_KINDS,
  DELIVERY_MODES,
  MAX_TTL_SECONDS,
  MIN_TTL_SECONDS,
  QUORUM_TYPES,
  TRIGGER_TYPES,
  type DecisionKind,
  type DeliveryMode,
  type QuorumType,
  type TriggerType,
} from './decision';
import { RoutedBy } from '@svc/ids';

/** Printable identifier chosen by the application (principal, participant, reference). */
const EXTERNAL_ID = /^[\x21-\x7e]{1,200}$/;

/** Quorum of an approval (or multi-signer signing) session. */
export class QuorumInput {
  @IsDefined()
  @IsString()
  @IsIn(QUORUM_TYPES)
  type!: QuorumType;

  /** Yes votes needed when `type` is `threshold` (1 ≤ threshold ≤ participants). */
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(50)
  threshold?: number;
}

/** Fields of a consent session shared by POST /api/v1/decisions and the consent_sessions alias. */
@RoutedBy('flow_id')
export class ConsentSessionBody {
  /** `flw_<region>_…`; must be an active flow of the caller's application. */
  @IsDefined()
  @IsIdOf('flow')
  flow_id!: string;

  /** embed | popup | redirect | direct; default `redirect`. */
  @IsOptional()
  @IsString()
  @IsIn(DELIVERY_MODES)
  delivery_mode?: DeliveryMode;

  /** Origin embedding the session; required with a publishable key, always one of the allowed origins. */
  @IsOptional()
  @IsString()
  @MaxLength(2048)
  embed_origin?: string;

  /**
   * The application's identifier of the person deciding (the user identifier in events; keys the
   * inbox). API token only: a publishable key is refused with 422, its page passes a
   * `principal_assertion` instead.
   */
  @IsOptional()
  @IsString()
  @Matches(EXTERNAL_ID, { message: 'principal_id must be 1 to 200 printable ASCII characters' })
  principal_id?: string;

  /** `pas_…` from POST /api/v1/decisions/principal_assertions: binds the person once; issued only to the application's server (API token). */
  @IsOptional()
  @IsString()
  @Matches(PRINCIPAL_ASSERTION, { message: 'principal_assertion must be a pas_… value from POST /api/v1/decisions/principal_assertions' })
  principal_assertion?: string;

  /** Seconds until the deadline (30 s to 30 days); default 900 for consent, 86400 for approval, 604800 for signature. */
  @IsOptional()
  @IsInt()
  @Min(MIN_TTL_SECONDS)
  @Max(MAX_TTL_SECONDS)
  ttl_seconds?: number;
}

/** Body of POST /api/v1/decisions (kind consent | approval | signature_request). */
@RoutedBy('flow_id')
export class CreateDecisionBody {
  @IsDefined()
  @IsString()
  @IsIn(DECISION_KINDS)
  kind!: DecisionKind;

  /** Required for consent; optional context for the other kinds. */
  @IsOptional()
  @IsIdOf('flow')
  flow_id?: string;

  @IsOptional()
  @IsString()
  @IsIn(DELIVERY_MODES)
  delivery_mode?: DeliveryMode;

  @IsOptional()
  @IsString()
  @MaxLength(2048)
  embed_origin?: string;

  /** API token only (see ConsentSessionBody.principal_id). */
  @IsOptional()
  @IsString()
  @Matches(EXTERNAL_ID, { message: 'principal_id must be 1 to 200 printable ASCII characters' })
  principal_id?: string;

  /** Consent: a `pas_…` principal assertion binding the person (see ConsentSessionBody.principal_assertion). */
  @IsOptional()
  @IsString()
  @Matches(PRINCIPAL_ASSERTION, { message: 'principal_assertion must be a pas_… value from POST /api/v1/decisions/principal_assertions' })
  principal_assertion?: string;

  @IsOptional()
  @IsInt()
  @Min(MIN_TTL_SECONDS)
  @Max(MAX_TTL_SECONDS)
  ttl_seconds?: number;

  /** Approval: the bound that triggered it (scope, action, value, time, escalation, reputation). */
  @IsOptional()
  @IsString()
  @IsIn(TRIGGER_TYPES)
  trigger_type?: TriggerType;

  /** Approval / signature: the caller's reference (escalation or grant id, document id) echoed in events. */
  @IsOptional()
  @IsString()
  @Matches(EXTERNAL_ID, { message: 'reference must be 1 to 200 printable ASCII characters' })
  reference?: string;

  /** Approval: `{ action, bounds }` proposed by the agent; signature: the document to sign. Free-form JSON object. */
  @IsOptional()
  @IsObject()
  proposal?: Record<string, unknown>;

  /** Approvers (approval) or signers (signature_request); default: the principal alone. */
  @IsOptional()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(50)
  @ArrayUnique()
  @IsString({ each: true })
  @Matches(EXTERNAL_ID, { each: true, message: 'participants must be 1 to 200 printable ASCII characters each' })
  participants?: string[];

  /** Aggregation of the participants' answers; default `all`. */
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => QuorumInput)
  quorum?: QuorumInput;
}

/** Every action of the session-driving API, across kinds. */
export const SESSION_ACTIONS = [...CONSENT_ACTIONS, 'approve', 'deny', 'counter', 'sign'] as const;
export type SessionAction = (typeof SESSION_ACTIONS)[number];

/** Body of POST /api/v1/decisions/:session_token/transitions (authorized by the session token). */
/** A WebAuthn assertion as @simplewebauthn/browser returns it (checked by the verifier). */
export class PasskeyAssertionInput {
  @IsDefined() @IsString() @MaxLength(1024) id!: string;
  @IsDefined() @IsString() @MaxLength(1024) rawId!: string;
  @IsDefined() @IsIn(['public-key']) type!: 'public-key';
  @IsDefined() @IsObject() response!: Record<string, unknown>;
  @IsOptional() @IsObject() clientExtensionResults?: Record<string, unknown>;
  @IsOptional() @IsString() @MaxLength(32) authenticatorAttachment?: string;
}

export class TransitionBody {
  @IsDefined()
  @IsString()
  @IsIn(SESSION_ACTIONS)
  action!: SessionAction;

  /**
   * Never accepted (422 principal_not_settable): the page cannot name or change the person, only
   * the server binds it. Declared so the refusal names the field.
   */
  @IsOptional()
  principal_id?: unknown;

  /** approve / deny / counter / sign / decline on a multi-participant session: who answers. */
  @IsOptional()
  @IsString()
  @Matches(EXTERNAL_ID, { message: 'participant_id must be 1 to 200 printable ASCII characters' })
  participant_id?: string;

  /** capture_evidence: what was captured, e.g. `{ "type": "comprehension_check", "passed": true }`. */
  @IsOptional()
  @IsObject()
  evidence?: Record<string, unknown>;

  /** counter: the counter proposal (required then). */
  @IsOptional()
  @IsObject()
  counter_proposal?: Record<string, unknown>;

  /**
   * sign (an agreement's signer who has a passkey; required then): the WebAuthn assertion over
   * the signature's challenge, as @simplewebauthn/browser's startAuthentication returns it.
   */
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => PasskeyAssertionInput)
  passkey_assertion?: PasskeyAssertionInput;

  /**
   * complete (consent): the purpose keys the person agreed to, each chosen on its own; every
   * other purpose of the flow version is recorded as declined. Must include the purposes the
   * flow requires on another lawful basis than consent. Omitted: every purpose shown.
   */
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(100)
  @ArrayUnique()
  @IsString({ each: true })
  @MaxLength(100, { each: true })
  purposes?: string[];
}

/** Body of POST /api/v1/decisions/principal_assertions (API token). */
@RoutedBy('flow_id')
export class CreatePrincipalAssertionBody {
  /** The application's identifier of the person its server has authenticated. */
  @IsDefined()
  @IsString()
  @Matches(EXTERNAL_ID, { message: 'principal_id must be 1 to 200 printable ASCII characters' })
  principal_id!: string;

  /** Restricts the assertion to consent sessions of this flow. */
  @IsOptional()
  @IsString()
  @MaxLength(100)
  flow_id?: string;

  /** Seconds the assertion stays usable (30 to 600); default 120. */
  @IsOptional()
  @IsInt()
  @Min(MIN_TTL_SECONDS)
  @Max(MAX_ASSERTION_TTL_SECONDS)
  ttl_seconds?: number;
}

/** Body of POST /api/v1/decisions/:session_token/exchange. */
export class ExchangeBody {
  @IsDefined()
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  exchange_token!: string;
}

/** Body of POST /api/v1/decisions/consent_tokens/verify. */
export class VerifyConsentTokenBody {
  @IsDefined()
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  consent_token!: string;
}

/** Query of GET /api/v1/inbox and GET /inbox. */
export class InboxQueryDto extends PageQuery {
  /** Whose inbox: the application's identifier of the person (sessions' principal_id or a participant). */
  @IsDefined()
  @IsString()
  @Matches(EXTERNAL_ID, { message: 'principal_id must be 1 to 200 printable ASCII characters' })
  principal_id!: string;

  @IsOptional()
  @IsString()
  @IsIn(['consent', 'approval'])
  kind?: 'consent' | 'approval';

  @IsOptional()
  @IsString()
  @IsIn(TRIGGER_TYPES)
  trigger_type?: TriggerType;

  @IsOptional()
  @IsIdOf('application')
  application_id?: string;

  /** `deadline` (ascending, default) or `newest` (created_at descending). */
  @IsOptional()
  @IsString()
  @IsIn(['deadline', 'newest'])
  sort?: 'deadline' | 'newest';
}
