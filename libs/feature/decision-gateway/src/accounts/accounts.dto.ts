import { ACCOUNT_ROLES, type AccountRole } from '@svc/auth';
import { IsDefined, IsIn, IsOptional, IsString, MaxLength, MinLength } from 'class-validator';
import { IsIdOf } from '@svc/ids';
import { PageQuery } from '@svc/server';
import { APPLICATION_MODES, ENVIRONMENTS, type ApplicationMode, type Environment } from '../applications/application';
import { Nullable } from '@svc/server';
import { ACCOUNT_TOKEN_ROLES, type AccountTokenRole } from './account';

/** Body of POST /api/v1/accounts and PATCH /api/v1/accounts/:account_id. */
export class AccountBody {
  @IsDefined()
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  name!: string;
}

/** Body of POST /api/v1/accounts/:account_id/members. */
export class AddMemberBody {
  /** The person (`usr_<region>_…`, homed in this region), e.g. from their `GET /api/v1/me`. */
  @IsDefined()
  @IsIdOf('person')
  person_id!: string;

  /** `admin`, `developer` or `auditor`; ownership is transferred with PATCH, never granted here. */
  @IsDefined()
  @IsString()
  @IsIn(ACCOUNT_ROLES)
  role!: AccountRole;
}

/** Body of PATCH /api/v1/accounts/:account_id/members/:person_id; `owner` transfers ownership. */
export class ChangeMemberBody {
  @IsDefined()
  @IsString()
  @IsIn(ACCOUNT_ROLES)
  role!: AccountRole;
}

/** Body of POST /api/v1/accounts/:account_id/account_tokens. */
export class IssueAccountTokenBody {
  @IsDefined()
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  name!: string;

  @IsDefined()
  @IsString()
  @IsIn(ACCOUNT_TOKEN_ROLES)
  role!: AccountTokenRole;
}

/** Body of POST /api/v1/applications. */
export class CreateApplicationBody {
  /** The owning account; optional with an account token (its own account). */
  @IsOptional()
  @IsIdOf('account')
  account_id?: string;

  @IsDefined()
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  name!: string;

  /** `development` (sandbox: `tp_dev_…`, `pk_test_…`) or `production` (`pk_live_…`, HTTPS origins only). */
  @IsDefined()
  @IsString()
  @IsIn(ENVIRONMENTS)
  environment!: Environment;

  @IsOptional()
  @IsString()
  @IsIn(APPLICATION_MODES)
  mode?: ApplicationMode;

  @IsOptional()
  @Nullable()
  @IsString()
  @MaxLength(4096)
  logo_url?: string | null;

  @IsOptional()
  @Nullable()
  @IsString()
  @MaxLength(16)
  brand_color?: string | null;
}

/** Query of GET /api/v1/applications. */
export class ListApplicationsQuery extends PageQuery {
  /** Required with a person's access token; with an account token, its own account. */
  @IsOptional()
  @IsIdOf('account')
  account_id?: string;

  @IsOptional()
  @IsString()
  @IsIn(ENVIRONMENTS)
  environment?: Environment;
}
