import { Transform } from 'class-transformer';
import { IsDefined, IsIn, IsOptional, IsString, MaxLength, MinLength } from 'class-validator';
import { IsIdOf } from '@svc/ids';
import { PageQuery } from '@svc/server';
import { INVITABLE_ROLES, MEMBER_STATUSES, type InvitableRole, type MemberStatus } from './collaboration';

/** Body of POST /api/v1/collaborations: the caller's application becomes its owner. */
export class CreateCollaborationBody {
  @IsDefined()
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  name!: string;
}

/** Body of POST /api/v1/collaborations/:id/invitations: exactly one of `application_id` and `person_id`. */
export class InviteBody {
  /** Another application of this region (`tp_…`); it answers with its own API token. */
  @IsOptional()
  @IsIdOf('application')
  application_id?: string;

  /** A person homed in this region (`usr_…`); they answer themselves, with their own access token. */
  @IsOptional()
  @IsIdOf('person')
  person_id?: string;

  /** `member` (reads and attaches agreements) or `viewer` (reads). */
  @IsDefined()
  @IsIn(INVITABLE_ROLES)
  role!: InvitableRole;
}

/** Body of POST /api/v1/collaborations/:id/agreements. */
export class AttachAgreementBody {
  /** An agreement (`agr_…`) of the caller's application. */
  @IsDefined()
  @IsIdOf('agreement')
  agreement_id!: string;
}

/** Query of GET /api/v1/collaborations: a page, optionally only those where the caller's membership has a status. */
export class ListCollaborationsQuery extends PageQuery {
  @IsOptional()
  @Transform(({ value }: { value: unknown }) => value)
  @IsIn(['invited', 'accepted'])
  status?: Extract<MemberStatus, 'invited' | 'accepted'>;
}

/** Query of a collaboration's members: a page, optionally of one status. */
export class ListMembersQuery extends PageQuery {
  @IsOptional()
  @Transform(({ value }: { value: unknown }) => value)
  @IsIn(MEMBER_STATUSES)
  status?: MemberStatus;
}
