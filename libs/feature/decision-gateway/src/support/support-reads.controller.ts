import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { AccountAccess, Auth, CurrentPrincipal, type Principal } from '@svc/auth';
import { RpcHandler, type RpcReplyInit, type RpcRequest } from '@svc/bus';
import { ApiDoc, ApiResponseOf, IdempotencyExempt } from '@svc/server';
import { SupportReadBody } from './support-reads.dto';
import { SupportReadResponse } from './support-reads.response';
import { SupportReads, supportPersonView } from './support-reads.service';

/**
 * Support reads of the Comply surface: a support operator of the application's account (account
 * token or member, role admin or above; never the application's API token) reads a person's
 * profile. Across regions the read is a crossing in the transfer register, written before the
 * data is released, and refused without a lawful basis.
 */
@Controller('api/v1/applications/:application_id/support_reads')
@Auth('account_token', 'access_token')
@AccountAccess({ read: 'admin', write: 'admin' })
export class SupportReadsController {
  constructor(private readonly reads: SupportReads) {}

  @Post()
  @HttpCode(201)
  @IdempotencyExempt(
    "a read of a person's current profile: a replay store would keep another region's personal data here, and each read is its own crossing in the transfer register",
  )
  @ApiDoc({
    summary:
      "A support operator reads a person's profile; a person of another region needs a lawful basis, and the crossing is in the transfer register before the data is released",
    tag: 'Cross-border',
    errors: [400, 401, 403, 404, 422, 503],
  })
  @ApiResponseOf(SupportReadResponse, { status: 201 })
  async create(@CurrentPrincipal() principal: Principal, @Body() body: SupportReadBody): Promise<SupportReadResponse> {
    return this.reads.read(principal, {
      personId: body.person_id,
      purpose: body.purpose,
      ...(body.lawful_basis ? { lawfulBasis: body.lawful_basis } : {}),
      ...(body.derogation_article ? { derogationArticle: body.derogation_article } : {}),
    });
  }
}

/** The person's region side of a support read: releases the profile against a register entry. */
@Controller()
export class SupportRpcHandlers {
  constructor(private readonly reads: SupportReads) {}

  @RpcHandler('gateway.read_person_for_support')
  async readPersonForSupport(
    request: RpcRequest<'gateway.read_person_for_support'>,
  ): Promise<RpcReplyInit<'gateway.read_person_for_support'>> {
    const person = await this.reads.releaseTo(request.personId, request.transferId, request.toRegion);
    return person ? { found: true, personJson: JSON.stringify(supportPersonView(person)) } : { found: false };
  }
}
