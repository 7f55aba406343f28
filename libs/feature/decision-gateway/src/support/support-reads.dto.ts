import { DEROGATION_ARTICLES, LAWFUL_BASES } from '@svc/contracts';
import { CrossBorder } from '@svc/ids';
import { IsDefined, IsIn, IsOptional, IsString, Matches, MaxLength, MinLength } from 'class-validator';

/**
 * Body of POST /api/v1/applications/{application_id}/support_reads: a support operator opens a
 * person's profile. The person may be homed in any region (the question names them, the answer is
 * fetched from their home region), so it is a cross-border body.
 */
@CrossBorder()
export class SupportReadBody {
  /** The person (`usr_<region>_…`) whose profile is read, of any region of the deployment. */
  @IsDefined() @IsString() @Matches(/^usr_[a-z0-9]{2,8}_[a-z2-7]{20}$/) person_id!: string;

  /** Why the operator reads it (the support case), written to the transfer register. */
  @IsDefined() @IsString() @MinLength(1) @MaxLength(200) purpose!: string;

  /**
   * Required when the person is homed in another region (refused otherwise): the lawful basis of
   * the crossing of the person's data to the operator's country. `adequacy_decision` only where the
   * adequacy table finds one for the operator's country.
   */
  @IsOptional() @IsIn([...LAWFUL_BASES]) lawful_basis?: string;

  /** The GDPR Art. 49 article of a `derogation` basis. */
  @IsOptional() @IsIn([...DEROGATION_ARTICLES]) derogation_article?: string;
}
