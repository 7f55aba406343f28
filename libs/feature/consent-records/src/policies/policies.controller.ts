import { Body, Controller, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { CurrentPrincipal, type Principal } from '@svc/auth';
import { ApiDoc, ApiResponseOf, DEFAULT_PAGE_SIZE, PageQuery, decodeCursor, toPage, type Page } from '@svc/server';
import { consentRecordsError } from '../consent-records.errors';
import { CreatePolicyBody, UpdatePolicyBody } from './policies.dto';
import { PoliciesRepository } from './policies.repository';
import { policyView } from './policy';
import { DataPolicyResponse, RetentionSweepResponse } from './policy.response';
import { RetentionSweep } from './retention-sweep';
import { ActivatePolicy } from './use-cases/activate-policy.use-case';
import { CreatePolicy } from './use-cases/create-policy.use-case';
import { findOwnedPolicy } from './use-cases/policy-terms';
import { UpdatePolicy } from './use-cases/update-policy.use-case';

const POLICY_RESPONSE =
  'data_policy: id, object, application_id, status (draft|active), version, version_status (draft|active|superseded), active_version, latest_version, name, description, rules [{purpose, data_category, retention (ISO 8601 duration)}], flow_ids, created_at, updated_at, activated_at';

/** Protect surface: data policies (retention per purpose and data category, attached to flows) and the retention sweep. API token only. */
@Controller('api/v1/policies')
export class PoliciesController {
  constructor(
    private readonly policies: PoliciesRepository,
    private readonly createPolicy: CreatePolicy,
    private readonly updatePolicy: UpdatePolicy,
    private readonly activatePolicy: ActivatePolicy,
    private readonly sweep: RetentionSweep,
  ) {}

  @Post()
  @ApiDoc({
    tag: 'Data policies',
    summary: 'Create a data policy (draft, version 1)',
    response: POLICY_RESPONSE,
    errors: [400, 401, 403, 421, 422],
  })
  @ApiResponseOf(DataPolicyResponse)
  async create(@CurrentPrincipal() principal: Principal, @Body() body: CreatePolicyBody): Promise<Record<string, unknown>> {
    return policyView(await this.createPolicy.execute(principal, body));
  }

  @Get()
  @ApiDoc({
    tag: 'Data policies',
    summary: 'List data policies (latest version of each)',
    response: 'Page of data_policy: data, has_more, next_cursor',
  })
  @ApiResponseOf(DataPolicyResponse, { page: true })
  async list(@CurrentPrincipal() principal: Principal, @Query() query: PageQuery): Promise<Page<Record<string, unknown>>> {
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    const after = query.cursor ? decodeCursor(query.cursor, ['created_at', 'id']) : undefined;
    const rows = await this.policies.list(
      principal.applicationId,
      limit + 1,
      after ? { createdAt: after.created_at, id: after.id } : undefined,
    );
    return toPage(rows, limit, policyView, (r) => ({ created_at: r.createdAt.toISOString(), id: r.policyId }));
  }

  /**
   * Runs the retention sweep for the caller's application now and reports the consents it ended
   * (each also fires `consent.expired`); the background sweep does the same for every application.
   */
  @Post('retention_sweeps')
  @HttpCode(200)
  @ApiDoc({
    tag: 'Data policies',
    summary: 'Sweep now: end the consents whose term or retention has run out',
    response:
      'retention_sweep: object, swept_at, expired_count, expired [{record_id, flow_id, expired_at, reason (consent_duration|retention_policy|deal_term), policy_id, policy_version, purposes}]',
    errors: [400, 401, 403],
  })
  @ApiResponseOf(RetentionSweepResponse)
  async sweepNow(@CurrentPrincipal() principal: Principal): Promise<RetentionSweepResponse> {
    const report = await this.sweep.execute(principal.applicationId);
    return {
      object: 'retention_sweep',
      swept_at: report.sweptAt.toISOString(),
      expired_count: report.expired.length,
      expired: report.expired.map((e) => ({
        record_id: e.recordId,
        flow_id: e.flowId,
        expired_at: e.expiredAt.toISOString(),
        reason: e.reason,
        policy_id: e.policyId,
        policy_version: e.policyVersion,
        purposes: e.purposes,
      })),
    };
  }

  @Get(':policy_id')
  @ApiDoc({ tag: 'Data policies', summary: 'Read a data policy (its latest version)', response: POLICY_RESPONSE })
  @ApiResponseOf(DataPolicyResponse)
  async get(@CurrentPrincipal() principal: Principal, @Param('policy_id') policyId: string): Promise<Record<string, unknown>> {
    return policyView(await findOwnedPolicy(this.policies, principal.applicationId, policyId));
  }

  @Get(':policy_id/versions/:version')
  @ApiDoc({ tag: 'Data policies', summary: 'Read one version of a data policy', response: POLICY_RESPONSE })
  @ApiResponseOf(DataPolicyResponse)
  async getVersion(
    @CurrentPrincipal() principal: Principal,
    @Param('policy_id') policyId: string,
    @Param('version') version: string,
  ): Promise<Record<string, unknown>> {
    await findOwnedPolicy(this.policies, principal.applicationId, policyId);
    const found = /^[1-9]\d{0,8}$/.test(version) ? await this.policies.find(principal.applicationId, policyId, Number(version)) : undefined;
    if (!found) throw consentRecordsError('policy_version_not_found', 'Policy version not found', { policy_id: policyId, version });
    return policyView(found);
  }

  @Patch(':policy_id')
  @ApiDoc({
    tag: 'Data policies',
    summary:
      'Change a data policy: edits the draft, or opens version N+1 as a draft when the latest is active (active versions are immutable)',
    response: POLICY_RESPONSE,
    errors: [400, 401, 403, 404, 421, 422],
  })
  @ApiResponseOf(DataPolicyResponse)
  async update(
    @CurrentPrincipal() principal: Principal,
    @Param('policy_id') policyId: string,
    @Body() body: UpdatePolicyBody,
  ): Promise<Record<string, unknown>> {
    return policyView(await this.updatePolicy.execute(principal, policyId, body));
  }

  @Post(':policy_id/activate')
  @HttpCode(200)
  @ApiDoc({
    tag: 'Data policies',
    summary: 'Activate the latest version (immutable from now; governs retention of its flows)',
    response: POLICY_RESPONSE,
    errors: [400, 401, 403, 404, 421],
  })
  @ApiResponseOf(DataPolicyResponse)
  async activate(@CurrentPrincipal() principal: Principal, @Param('policy_id') policyId: string): Promise<Record<string, unknown>> {
    return policyView(await this.activatePolicy.execute(principal, policyId));
  }
}
