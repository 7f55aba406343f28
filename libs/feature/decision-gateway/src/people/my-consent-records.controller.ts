import { Body, Controller, HttpCode, Param, Post } from '@nestjs/common';
import { Type } from 'class-transformer';
import { IsIn, IsOptional, IsString, MaxLength, ValidateNested } from 'class-validator';
import { Auth, CurrentPrincipal, authError, type Principal } from '@svc/auth';
import { RpcClient } from '@svc/bus';
import { sha256Hex } from '@svc/crypto';
import { ApiDoc, ApiResponseOf, Nullable } from '@svc/server';
import { PeopleRepository } from './people.repository';

/** `POST /api/v1/me/consent_records/:record_id/withdrawals`. */
export class MyWithdrawalBody {
  /** A purpose key withdraws that purpose only; absent withdraws the whole consent. */
  @IsOptional()
  @IsString()
  @MaxLength(64)
  purpose?: string;
}

/** Who withdrew for the person: "by D acting for P under dlg_…". */
export class ActedByResponse {
  /** The delegate (`usr_…`) who acted. */
  @IsString() delegate_id!: string;
  /** The person (`usr_…`) the delegate acted for. */
  @IsString() principal_id!: string;
  @IsString() delegation_grant_id!: string;
  @IsIn(['guardian', 'caregiver', 'power_of_attorney', 'it_admin', 'peer']) delegation_type!: string;
}

/** 201 of a person's withdrawal. */
export class ConsentWithdrawalResponse {
  @IsIn(['consent_withdrawal']) object!: 'consent_withdrawal';
  @IsString() record_id!: string;
  @IsString() application_id!: string;
  /** The purpose withdrawn, or null for the whole consent. */
  @IsString() @Nullable() purpose!: string | null;
  /** Always `own_records`: the person's own account. */
  @IsIn(['own_records']) channel!: 'own_records';
  @IsString() withdrawn_at!: string;
  /** The delegate who acted for the person, or null when the person acted themself. */
  @Nullable() @ValidateNested() @Type(() => ActedByResponse) acted_by!: ActedByResponse | null;
}

/**
 * A person's own consent records, with their OAuth access token: withdraw one (or one purpose of
 * it). A record is the person's when an application linked its subject reference to the person
 * (`/api/v1/applications/:id/person_links`); others answer 404 `record_not_found`, like unknown
 * ones. With `X-Delegation-Grant-Id` (a grant covering the `me` surface for `write`) a delegate
 * withdraws for the principal, and the record, its receipt and the audit entry name both people
 * and the grant (`acted_by`).
 */
@Controller('api/v1/me/consent_records')
export class MyConsentRecordsController {
  constructor(
    private readonly people: PeopleRepository,
    private readonly rpc: RpcClient,
  ) {}

  @Post(':record_id/withdrawals')
  @HttpCode(201)
  @Auth('access_token')
  @ApiDoc({
    tag: 'People',
    summary:
      'Withdraw one of my consent records, or one purpose of it (person access token; a delegate with X-Delegation-Grant-Id acts for the principal)',
    response:
      'consent_withdrawal: record_id, application_id, purpose, channel (own_records), withdrawn_at, acted_by {delegate_id, principal_id, delegation_grant_id, delegation_type} or null',
    errors: [400, 401, 403, 404, 409, 422],
  })
  @ApiResponseOf(ConsentWithdrawalResponse)
  async withdraw(
    @CurrentPrincipal() principal: Principal,
    @Param('record_id') recordId: string,
    @Body() body: MyWithdrawalBody,
  ): Promise<ConsentWithdrawalResponse> {
    if (!principal.personId) throw authError('invalid_token', "This route needs a person's access token");
    const links = await this.people.listLinksOfPerson(principal.personId);
    const delegation = principal.delegation;
    const reply = await this.rpc.call('consent_records.withdraw_for_person', {
      recordId: recordId.slice(0, 200),
      purpose: body.purpose ?? '',
      // Digests only: the person's references never travel.
      subjects: links.map((l) => ({ applicationId: l.applicationId, kind: l.subjectKind, valueSha256: sha256Hex(l.subjectValue) })),
      delegateId: delegation?.delegateId ?? '',
      principalId: delegation?.principalId ?? '',
      delegationGrantId: delegation?.grantId ?? '',
      delegationType: delegation?.type ?? '',
    });
    return {
      object: 'consent_withdrawal',
      record_id: reply.recordId,
      application_id: reply.applicationId,
      purpose: reply.purpose === '' ? null : reply.purpose,
      channel: 'own_records',
      withdrawn_at: reply.withdrawnAt,
      acted_by: delegation
        ? {
            delegate_id: delegation.delegateId,
            principal_id: delegation.principalId,
            delegation_grant_id: delegation.grantId,
            delegation_type: delegation.type,
          }
        : null,
    };
  }
}
