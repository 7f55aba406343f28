import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { CurrentPrincipal, type Principal } from '@svc/auth';
import { Clock, PlatformConfig } from '@svc/config';
import { ApiDoc, DEFAULT_PAGE_SIZE, PageQuery, decodeCursor, toPage, type Page, ApiResponseOf } from '@svc/server';
import { FormIntakeResponse, FormIntegrationResponse } from './form-integration.response';
import { consentRecordsError } from '../consent-records.errors';
import { formIntegrationView, isFormIntegrationId, type FormIntegration } from './form-integration';
import { CreateFormIntegrationBody, FormIntakesQuery } from './form-integrations.dto';
import { FormIntegrationsRepository, type FormIntake } from './form-integrations.repository';
import { CreateFormIntegration } from './use-cases/create-form-integration.use-case';

const INTEGRATION_RESPONSE =
  'form_integration: id, object, application_id, platform (typeform), flow_id, form_id, purposes [{purpose, field_ref, field_type, required, default_checked}], subject {email_field_ref, external_id_field_ref}, webhook_url, created_at; on creation also signing_secret (shown once)';
const INTAKE_RESPONSE =
  'page of form_intake: response_token, outcome (recorded|refused), record_id, reason_code, detail, received_at; newest first';

function intakeView(intake: FormIntake): FormIntakeResponse {
  return {
    object: 'form_intake',
    response_token: intake.responseToken,
    outcome: intake.outcome,
    record_id: intake.recordId,
    reason_code: intake.reasonCode,
    detail: intake.detail,
    received_at: intake.receivedAt.toISOString(),
  };
}

/** Hosted form platform integrations (API token): the mapping, the webhook URL and the signing secret. */
@Controller('api/v1/consent_records/form_integrations')
export class FormIntegrationsController {
  constructor(
    private readonly createIntegration: CreateFormIntegration,
    private readonly integrations: FormIntegrationsRepository,
    private readonly config: PlatformConfig,
    private readonly clock: Clock,
  ) {}

  /** 201 with the integration, its webhook URL and its signing secret (shown only here). */
  @Post()
  @ApiDoc({
    tag: 'Capture',
    summary: "Connect a hosted form platform's form to a flow (signed webhook intake)",
    response: INTEGRATION_RESPONSE,
    errors: [400, 401, 403, 404, 409, 421, 422],
  })
  @ApiResponseOf(FormIntegrationResponse)
  async create(@CurrentPrincipal() principal: Principal, @Body() body: CreateFormIntegrationBody): Promise<Record<string, unknown>> {
    const { integration, secret } = await this.createIntegration.execute(principal, body);
    return { ...formIntegrationView(integration, this.config.publicBaseUrl), signing_secret: secret };
  }

  @Get()
  @ApiDoc({ tag: 'Capture', summary: 'List form integrations (newest first)', response: `page of ${INTEGRATION_RESPONSE}` })
  @ApiResponseOf(FormIntegrationResponse, { page: true })
  async list(@CurrentPrincipal() principal: Principal, @Query() query: PageQuery): Promise<Page<Record<string, unknown>>> {
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    const after = query.cursor ? decodeCursor(query.cursor, ['created_at', 'id']) : undefined;
    const rows = await this.integrations.list(
      principal.applicationId,
      limit + 1,
      after ? { createdAt: new Date(after.created_at), id: after.id } : undefined,
    );
    return toPage(
      rows,
      limit,
      (i) => formIntegrationView(i, this.config.publicBaseUrl),
      (i) => ({ created_at: i.createdAt.toISOString(), id: i.id }),
    );
  }

  @Get(':integration_id')
  @ApiDoc({ tag: 'Capture', summary: 'Read a form integration', response: INTEGRATION_RESPONSE })
  @ApiResponseOf(FormIntegrationResponse)
  async get(@CurrentPrincipal() principal: Principal, @Param('integration_id') id: string): Promise<Record<string, unknown>> {
    return formIntegrationView(await this.owned(principal, id), this.config.publicBaseUrl);
  }

  /** 204; later deliveries answer 404, on which Typeform disables its webhook. */
  @Delete(':integration_id')
  @HttpCode(204)
  @ApiDoc({ tag: 'Capture', summary: 'Delete a form integration (its webhook stops being accepted)', response: 'no content' })
  async delete(@CurrentPrincipal() principal: Principal, @Param('integration_id') id: string): Promise<void> {
    const deleted = isFormIntegrationId(id) && (await this.integrations.softDelete(principal.applicationId, id, this.clock.now()));
    if (!deleted) throw consentRecordsError('form_integration_not_found', 'Form integration not found', { integration_id: id });
  }

  /** What became of each delivered response: the record it made, or the named refusal. */
  @Get(':integration_id/intakes')
  @ApiDoc({ tag: 'Capture', summary: 'Responses delivered to a form integration, recorded or refused', response: INTAKE_RESPONSE })
  @ApiResponseOf(FormIntakeResponse, { page: true })
  async intakes(
    @CurrentPrincipal() principal: Principal,
    @Param('integration_id') id: string,
    @Query() query: FormIntakesQuery,
  ): Promise<Page<FormIntakeResponse>> {
    const integration = await this.owned(principal, id);
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    const after = query.cursor ? decodeCursor(query.cursor, ['received_at', 'token']) : undefined;
    const rows = await this.integrations.intakes(
      integration.id,
      limit + 1,
      after ? { receivedAt: new Date(after.received_at), token: after.token } : undefined,
      query.outcome,
    );
    return toPage(rows, limit, intakeView, (r) => ({ received_at: r.receivedAt.toISOString(), token: r.responseToken }));
  }

  private async owned(principal: Principal, id: string): Promise<FormIntegration> {
    const integration = isFormIntegrationId(id) ? await this.integrations.find(id, principal.applicationId) : undefined;
    if (!integration) throw consentRecordsError('form_integration_not_found', 'Form integration not found', { integration_id: id });
    return integration;
  }
}
