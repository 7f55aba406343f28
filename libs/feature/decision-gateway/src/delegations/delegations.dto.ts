import { Transform } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsDefined,
  IsIn,
  IsISO8601,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
  MinLength,
} from 'class-validator';
import { DEROGATION_ARTICLES, LAWFUL_BASES } from '@svc/contracts';
import { CrossBorder } from '@svc/ids';
import { PageQuery } from '@svc/server';
import { DELEGATION_ACTIONS, DELEGATION_TYPES, SURFACE_PATTERN, type DelegationAction, type DelegationType } from './delegation-grant';

/**
 * Body of POST /api/v1/delegations: the principal offers a grant to a delegate. The delegate may be
 * homed in another region (the grant stays in the principal's): the body names a person of any
 * region, so it is a cross-border body, and such an offer carries the crossing's lawful basis.
 */
@CrossBorder()
export class OfferDelegationBody {
  /** guardian, caregiver, power_of_attorney, it_admin or peer. */
  @IsDefined() @IsIn([...DELEGATION_TYPES]) type!: DelegationType;

  /** The delegate (`usr_<region>_…`), a person of any region of the deployment. */
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

  /**
   * Required when the delegate is homed in another region (refused otherwise): the lawful basis
   * of the crossing of the grant and of the principal's data to the delegate, written to the
   * transfer register before the grant exists. `adequacy_decision` only where the adequacy table
   * finds one for the delegate's country.
   */
  @IsOptional() @IsIn([...LAWFUL_BASES]) lawful_basis?: string;

  /** The GDPR Art. 49 article of a `derogation` basis. */
  @IsOptional() @IsIn([...DEROGATION_ARTICLES]) derogation_article?: string;
}

/** Query of GET /api/v1/delegations. */
export class ListDelegationsQuery extends PageQuery {
  /** Only grants where the caller is the principal, or the delegate. */
  @IsOptional()
  @Transform(({ value }: { value: unknown }) => value)
  @IsIn(['principal', 'delegate'])
  role?: 'principal' | 'delegate';
}
