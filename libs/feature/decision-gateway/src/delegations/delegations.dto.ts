import { Transform } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsDefined, IsIn, IsISO8601, IsOptional, IsString, Matches, MaxLength, MinLength } from 'class-validator';
import { PageQuery } from '@svc/server';
import { DELEGATION_ACTIONS, DELEGATION_TYPES, SURFACE_PATTERN, type DelegationAction, type DelegationType } from './delegation-grant';

/** Body of POST /api/v1/delegations: the principal offers a grant to a delegate. */
export class OfferDelegationBody {
  /** guardian, caregiver, power_of_attorney, it_admin or peer. */
  @IsDefined() @IsIn([...DELEGATION_TYPES]) type!: DelegationType;

  /** The delegate (`usr_<region>_…`), a person of the principal's region. */
  @IsDefined() @IsString() @Matches(/^usr_[a-z0-9]{2,8}_[a-z2-7]{20}$/) delegate_person_id!: string;

  /** API surfaces the delegate may use in the principal's context (e.g. `me`, `decisions`). */
  @IsDefined()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(20)
  @IsString({ each: true })
  @Matches(SURFACE_PATTERN, { each: true })
  @Matches(/^(?!delegations$)/, { each: true, message: 'a delegation grant cannot cover the delegations surface' })
  surfaces!: string[];

  /** `read` (GET, HEAD) and/or `write` (every other method). */
  @IsDefined() @IsArray() @ArrayMinSize(1) @ArrayMaxSize(2) @IsIn([...DELEGATION_ACTIONS], { each: true }) actions!: DelegationAction[];

  /** RFC 3339 end of the grant (in the future, at most 10 years ahead). */
  @IsDefined() @IsString() @IsISO8601({ strict: true }) @MaxLength(40) expires_at!: string;

  /** Free text shown to both people. */
  @IsOptional() @IsString() @MinLength(1) @MaxLength(500) purpose?: string;

  /** Reference of the evidence (court order, registered power of attorney) behind a guardian or power-of-attorney grant. */
  @IsOptional() @IsString() @MinLength(1) @MaxLength(200) evidence_reference?: string;
}

/** Query of GET /api/v1/delegations. */
export class ListDelegationsQuery extends PageQuery {
  /** Only grants where the caller is the principal, or the delegate. */
  @IsOptional()
  @Transform(({ value }: { value: unknown }) => value)
  @IsIn(['principal', 'delegate'])
  role?: 'principal' | 'delegate';
}
