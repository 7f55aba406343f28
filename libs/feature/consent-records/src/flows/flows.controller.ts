import { Body, Controller, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { CurrentPrincipal, type Principal } from '@svc/auth';
import { PlatformConfig } from '@svc/config';
import { ApiDoc, DEFAULT_PAGE_SIZE, PageQuery, decodeCursor, toPage, type Page, ApiResponseOf } from '@svc/server';
import { FlowResponse } from './flow.response';
import { consentRecordsError } from '../consent-records.errors';
import { flowView } from './flow';
import { CreateFlowBody, UpdateFlowBody } from './flows.dto';
import { FlowsRepository } from './flows.repository';
import { ActivateFlow } from './use-cases/activate-flow.use-case';
import { CreateFlow } from './use-cases/create-flow.use-case';
import { findOwnedFlow } from './use-cases/find-flow';
import { UpdateFlow } from './use-cases/update-flow.use-case';

/** Consent surface: flows (reusable consent templates) and their versions. API token only. */
@Controller('api/v1/flows')
export class FlowsController {
  constructor(
    private readonly flows: FlowsRepository,
    private readonly createFlow: CreateFlow,
    private readonly updateFlow: UpdateFlow,
    private readonly activateFlow: ActivateFlow,
    private readonly config: PlatformConfig,
  ) {}

  /** 201 with the new flow, status `draft`, version 1. */
  @Post()
  @ApiDoc({
    tag: 'Flows',
    summary: 'Create a flow (draft, version 1)',
    response:
      'Flow: id, object, application_id, status (draft|active), version, version_status (draft|active|superseded), active_version, latest_version, name, locale, presentation {title, description}, policy_url, purposes [{key, label, description, mechanism, required}], data_fields [{key, label, required}], purpose_of_use, retention_period, revocation_policy, consent_path (standard|informed), requirements, consent_duration, capturable_in_own_form, flow_url (null while draft), created_at, updated_at, activated_at',
  })
  @ApiResponseOf(FlowResponse)
  async create(@CurrentPrincipal() principal: Principal, @Body() body: CreateFlowBody): Promise<Record<string, unknown>> {
    return flowView(await this.createFlow.execute(principal, body), this.config.publicBaseUrl);
  }

  @Get()
  @ApiDoc({ tag: 'Flows', summary: 'List flows (latest version of each)', response: 'Page of Flow: data, has_more, next_cursor' })
  @ApiResponseOf(FlowResponse, { page: true })
  async list(@CurrentPrincipal() principal: Principal, @Query() query: PageQuery): Promise<Page<Record<string, unknown>>> {
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    const after = query.cursor ? decodeCursor(query.cursor, ['created_at', 'id']) : undefined;
    const rows = await this.flows.list(
      principal.applicationId,
      limit + 1,
      after ? { createdAt: after.created_at, id: after.id } : undefined,
    );
    return toPage(
      rows,
      limit,
      (r) => flowView(r, this.config.publicBaseUrl),
      (r) => ({ created_at: r.createdAt.toISOString(), id: r.flowId }),
    );
  }

  /** The flow's latest version (which may be a draft newer than the active one). */
  @Get(':flow_id')
  @ApiDoc({ tag: 'Flows', summary: 'Read a flow (its latest version)', response: 'Flow' })
  @ApiResponseOf(FlowResponse)
  async get(@CurrentPrincipal() principal: Principal, @Param('flow_id') flowId: string): Promise<Record<string, unknown>> {
    return flowView(await findOwnedFlow(this.flows, principal.applicationId, flowId), this.config.publicBaseUrl);
  }

  /** One version, e.g. the one an earlier consent was collected under. */
  @Get(':flow_id/versions/:version')
  @ApiDoc({ tag: 'Flows', summary: 'Read one version of a flow', response: 'Flow (that version)' })
  @ApiResponseOf(FlowResponse)
  async getVersion(
    @CurrentPrincipal() principal: Principal,
    @Param('flow_id') flowId: string,
    @Param('version') version: string,
  ): Promise<Record<string, unknown>> {
    await findOwnedFlow(this.flows, principal.applicationId, flowId);
    const found = /^[1-9]\d{0,8}$/.test(version) ? await this.flows.find(principal.applicationId, flowId, Number(version)) : undefined;
    if (!found) throw consentRecordsError('flow_version_not_found', 'Flow version not found', { flow_id: flowId, version });
    return flowView(found, this.config.publicBaseUrl);
  }

  @Patch(':flow_id')
  @ApiDoc({
    tag: 'Flows',
    summary: 'Change a flow: edits the draft, or opens version N+1 as a draft when the latest is active',
    response: 'Flow (latest version)',
  })
  @ApiResponseOf(FlowResponse)
  async update(
    @CurrentPrincipal() principal: Principal,
    @Param('flow_id') flowId: string,
    @Body() body: UpdateFlowBody,
  ): Promise<Record<string, unknown>> {
    return flowView(await this.updateFlow.execute(principal, flowId, body), this.config.publicBaseUrl);
  }

  @Post(':flow_id/activate')
  @ApiDoc({
    tag: 'Flows',
    summary: 'Activate the latest version (terms immutable; flow.activated)',
    response: 'Flow',
    errors: [400, 401, 403, 404, 421],
  })
  @HttpCode(200)
  @ApiResponseOf(FlowResponse)
  async activate(@CurrentPrincipal() principal: Principal, @Param('flow_id') flowId: string): Promise<Record<string, unknown>> {
    return flowView(await this.activateFlow.execute(principal, flowId), this.config.publicBaseUrl);
  }
}
