import { Body, Controller, Get, HttpCode, Param, Post, Put, Query, Res } from '@nestjs/common';
import { commonError } from '@svc/errors';
import { CurrentPrincipal, type Principal } from '@svc/auth';
import { ApiDoc, ApiResponseOf, DEFAULT_PAGE_SIZE, decodeCursor, toPage, type Page } from '@svc/server';
import type { FastifyReply } from 'fastify';
import { gatewayError } from '../gateway.errors';
import { ChangeRequestBody, ChangeRequestQuery, GovernancePolicyBody } from './comply.dto';
import { ChangeRequestResponse, changeRequestView, GovernancePolicyResponse, policyView } from './comply.responses';
import { ComplyService } from './comply.service';
import type { ChangeRequestStatus, GovernedAction } from './governance';

/**
 * Comply: who may activate flows, change modules, rotate keys (issue and revoke API tokens) and
 * change this policy, and which of those need a second, different approver (four-eyes). Each
 * step of a change request is an audit chain entry.
 */
@Controller('api/v1/governance')
export class GovernanceController {
  constructor(private readonly comply: ComplyService) {}

  @Get()
  @ApiDoc({ tag: 'Comply', summary: 'The governance policy: roles per governed action and the four-eyes actions', errors: [401, 403] })
  @ApiResponseOf(GovernancePolicyResponse)
  async get(@CurrentPrincipal() principal: Principal): Promise<Record<string, unknown>> {
    return policyView(principal.applicationId, await this.comply.policy(principal.applicationId));
  }

  @Put()
  @ApiDoc({
    tag: 'Comply',
    summary: 'Replace the governance policy (four-eyes on change_governance: 202 with the change request)',
    response: 'The policy (200), or the pending change request (202)',
    alsoAnswers: [202],
    errors: [400, 401, 403, 422],
  })
  @ApiResponseOf(GovernancePolicyResponse)
  @ApiResponseOf(ChangeRequestResponse, { status: 202 })
  async put(
    @CurrentPrincipal() principal: Principal,
    @Body() body: GovernancePolicyBody,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<Record<string, unknown>> {
    const submitted = await this.comply.changePolicy(
      principal,
      { roles: { ...body.roles }, four_eyes: body.four_eyes as GovernedAction[] },
      body.reason,
    );
    if (submitted.outcome === 'pending') {
      void reply.status(202);
      return changeRequestView(submitted.request);
    }
    return policyView(principal.applicationId, submitted.result);
  }

  @Get('change_requests')
  @ApiDoc({
    tag: 'Comply',
    summary: 'Change requests of the application, oldest first (filter by status or action)',
    errors: [400, 401, 403],
  })
  @ApiResponseOf(ChangeRequestResponse, { page: true })
  async list(@CurrentPrincipal() principal: Principal, @Query() query: ChangeRequestQuery): Promise<Page<Record<string, unknown>>> {
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    const after = query.cursor ? Number(decodeCursor(query.cursor, ['seq']).seq) : 0;
    if (!Number.isSafeInteger(after) || after < 0)
      throw commonError('invalid_request', 'cursor is not a cursor returned by this list', { field: 'cursor' });
    const rows = await this.comply.listRequests(
      principal.applicationId,
      { status: query.status as ChangeRequestStatus | undefined, action: query.action as GovernedAction | undefined },
      limit + 1,
      after,
    );
    return toPage(rows, limit, changeRequestView, (row) => ({ seq: row.seq }));
  }

  @Post('change_requests')
  @HttpCode(201)
  @ApiDoc({ tag: 'Comply', summary: 'Ask a second approver ahead of a flow activation or a key rotation', errors: [400, 401, 403, 422] })
  @ApiResponseOf(ChangeRequestResponse)
  async create(@CurrentPrincipal() principal: Principal, @Body() body: ChangeRequestBody): Promise<Record<string, unknown>> {
    if (body.action === 'activate_flows' && body.version === undefined)
      throw gatewayError('change_request_invalid', 'version names the flow version to activate', { field: 'version' });
    if (body.action === 'rotate_keys' && body.version !== undefined)
      throw gatewayError('change_request_invalid', 'version is only for activate_flows', { field: 'version' });
    const changes = body.action === 'activate_flows' ? { version: body.version } : {};
    return changeRequestView(await this.comply.requestApproval(principal, body.action, body.target, changes, body.reason));
  }

  @Get('change_requests/:change_request_id')
  @ApiDoc({ tag: 'Comply', summary: 'One change request with its steps and their audit entries', errors: [401, 403, 404] })
  @ApiResponseOf(ChangeRequestResponse)
  async one(@CurrentPrincipal() principal: Principal, @Param('change_request_id') id: string): Promise<Record<string, unknown>> {
    return changeRequestView(await this.comply.request(principal.applicationId, id));
  }

  @Post('change_requests/:change_request_id/approve')
  @HttpCode(200)
  @ApiDoc({
    tag: 'Comply',
    summary: 'Approve as the second, different approver (module and policy changes apply at once)',
    errors: [401, 403, 404, 409],
  })
  @ApiResponseOf(ChangeRequestResponse)
  async approve(@CurrentPrincipal() principal: Principal, @Param('change_request_id') id: string): Promise<Record<string, unknown>> {
    return changeRequestView(await this.comply.approve(principal, id));
  }

  @Post('change_requests/:change_request_id/reject')
  @HttpCode(200)
  @ApiDoc({ tag: 'Comply', summary: "Reject a pending change request (or withdraw one's own)", errors: [401, 403, 404, 409] })
  @ApiResponseOf(ChangeRequestResponse)
  async reject(@CurrentPrincipal() principal: Principal, @Param('change_request_id') id: string): Promise<Record<string, unknown>> {
    return changeRequestView(await this.comply.reject(principal, id));
  }
}
