import { IsDefined, IsIn, IsInt, IsOptional, IsString, Matches, Max, MaxLength, Min, MinLength } from 'class-validator';
import { PageQuery } from '@svc/server';
import { MIN_COHORT_FLOOR } from './suppression';

const PURPOSE_KEY = /^[a-z][a-z0-9_]{0,63}$/;

/** Body of `POST /api/v1/clean_rooms`: the initiator proposes a comparison to a partner application. */
export class ProposeCleanRoomBody {
  @IsDefined() @IsString() @MinLength(1) @MaxLength(200) name!: string;
  /** Another application of this region (`tp_…`). */
  @IsDefined()
  @IsString()
  @Matches(/^tp_[a-z]{2,3}_[a-z2-7]{20}$/, { message: 'partner_application_id must be an application id' })
  partner_application_id!: string;
  /** A consent purpose of one of the initiator's active flows: its audience is the people whose consent covers it. */
  @IsDefined() @IsString() @Matches(PURPOSE_KEY, { message: 'purpose must be a purpose key' }) purpose!: string;
  /** Counts below it are suppressed; at least 10, default 50. */
  @IsOptional() @IsInt() @Min(MIN_COHORT_FLOOR) @Max(1_000_000) min_cohort_size?: number;
}

/** Body of `POST /api/v1/clean_rooms/:id/accept`: the partner's purpose. */
export class AcceptCleanRoomBody {
  @IsDefined() @IsString() @Matches(PURPOSE_KEY, { message: 'purpose must be a purpose key' }) purpose!: string;
}

export class CleanRoomQuery extends PageQuery {
  @IsOptional() @IsIn(['proposed', 'active', 'declined']) status?: string;
}
