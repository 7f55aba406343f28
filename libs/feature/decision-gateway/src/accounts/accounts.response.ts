import { ACCOUNT_ROLES, type AccountRole } from '@svc/auth';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, ValidateNested } from 'class-validator';
import { Nullable } from '@svc/server';
import { ApiTokenResponse, ApplicationResponse } from '../applications/application.response';
import { ACCOUNT_TOKEN_ROLES, type Account, type AccountMember, type AccountTokenRecord, type AccountTokenRole } from './account';

/** An organisation account, with the caller's role in it. */
export class AccountResponse {
  @IsString() id!: string;
  @IsIn(['account']) object!: 'account';
  @IsString() name!: string;
  /** The caller's role: a member's, or the account token's. */
  @IsIn([...ACCOUNT_ROLES]) role!: AccountRole;
  @IsString() created_at!: string;
}

/** A member of an account. */
export class AccountMemberResponse {
  @IsIn(['account_member']) object!: 'account_member';
  @IsString() account_id!: string;
  @IsString() person_id!: string;
  @IsIn([...ACCOUNT_ROLES]) role!: AccountRole;
  @IsString() created_at!: string;
  @IsString() updated_at!: string;
}

/** An account token as listed; its secret appears once, in the answer of issue. */
export class AccountTokenResponse {
  @IsString() id!: string;
  @IsIn(['account_token']) object!: 'account_token';
  @IsString() account_id!: string;
  @IsString() name!: string;
  @IsIn([...ACCOUNT_TOKEN_ROLES]) role!: AccountTokenRole;
  @IsString() created_at!: string;
  @IsString() @Nullable() revoked_at!: string | null;
  /** The token itself (`acct_…`): only in the answer of issue. */
  @IsOptional() @IsString() token?: string;
}

/** The answer of creating an application: the application, its publishable key and its first API token (once). */
export class CreatedApplicationResponse {
  @ValidateNested() @Type(() => ApplicationResponse) application!: ApplicationResponse;
  @IsString() account_id!: string;
  @ValidateNested() @Type(() => ApiTokenResponse) api_token!: ApiTokenResponse;
}

/** A publishable key of an application (public: it may be listed in full). */
export class PublishableKeyResponse {
  @IsIn(['publishable_key']) object!: 'publishable_key';
  @IsString() key!: string;
  @IsIn(['development', 'production']) environment!: 'development' | 'production';
  @IsString() created_at!: string;
  @IsString() @Nullable() revoked_at!: string | null;
}

/** The answer of a sandbox reset. */
export class SandboxResetResponse {
  @IsIn(['sandbox_reset']) object!: 'sandbox_reset';
  @IsString() application_id!: string;
  /** Everything the application's services kept from before this instant is deleted. */
  @IsString() reset_at!: string;
  /** Consent sessions decision-gateway deleted; the other services delete theirs on the event. */
  @IsInt() sessions_deleted!: number;
}

export function accountView(account: Account, role: AccountRole): AccountResponse {
  return { id: account.id, object: 'account', name: account.name, role, created_at: account.createdAt.toISOString() };
}

export function memberView(m: AccountMember): AccountMemberResponse {
  return {
    object: 'account_member',
    account_id: m.accountId,
    person_id: m.personId,
    role: m.role,
    created_at: m.createdAt.toISOString(),
    updated_at: m.updatedAt.toISOString(),
  };
}

export function accountTokenView(t: AccountTokenRecord): AccountTokenResponse {
  return {
    id: t.id,
    object: 'account_token',
    account_id: t.accountId,
    name: t.name,
    role: t.role,
    created_at: t.createdAt.toISOString(),
    revoked_at: t.revokedAt?.toISOString() ?? null,
  };
}
