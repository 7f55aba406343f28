import { Transform } from 'class-transformer';
import { IsIn, IsInt, IsISO8601, IsOptional, IsString, Matches, Max, Min } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { RoutedBy } from '@svc/ids';
import { PageQuery } from '@svc/server';
import { VOUCH_REASON_CODES, VOUCH_WEIGHT_MAX, type VouchReasonCode } from './vouch';

/** An agent id or a person id of any region (a foreign one answers 421 before validation). */
export const SUBJECT_PATTERN = /^(agent|usr)_[a-z]{2,4}_[a-z2-7]{20}$/;
const SUBJECT_MESSAGE = 'subject must be an agent id (agent_<region>_…) or a person id (usr_<region>_…)';

/** Body of POST /api/v1/vouches. */
@RoutedBy('subject')
export class CreateVouchBody {
  /** The agent or person vouched for. */
  @IsString()
  @Matches(SUBJECT_PATTERN, { message: SUBJECT_MESSAGE })
  @JSONSchema({ examples: ['agent_us_abcdefghijklmnopqrst'] })
  subject!: string;

  /** Points this vouch adds to the subject's vouch term (1–50; the term tops out at 70). */
  @IsInt()
  @Min(1)
  @Max(VOUCH_WEIGHT_MAX)
  @JSONSchema({ examples: [30] })
  weight!: number;

  /** Why the voucher trusts the subject (closed list). */
  @IsIn([...VOUCH_REASON_CODES])
  @JSONSchema({ examples: ['successful_transactions'] })
  reason_code!: VouchReasonCode;

  /** When the vouch stops counting (RFC 3339, in the future, at most 366 days ahead). */
  @IsISO8601({ strict: true })
  @JSONSchema({ examples: ['2027-01-01T00:00:00Z'] })
  expires_at!: string;
}

/** Query of GET /api/v1/vouches. */
export class ListVouchesQuery extends PageQuery {
  /** Only vouches for this subject. */
  @IsOptional()
  @Transform(({ value }: { value: unknown }) => value)
  @IsString()
  @Matches(SUBJECT_PATTERN, { message: SUBJECT_MESSAGE })
  subject?: string;
}
