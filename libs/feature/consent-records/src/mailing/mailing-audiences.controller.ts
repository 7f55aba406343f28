import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { CurrentPrincipal, type Principal } from '@svc/auth';
import { PlatformConfig } from '@svc/config';
import { DomainError } from '@svc/errors';
import { ApiDoc, ApiResponseOf, DEFAULT_PAGE_SIZE, PageQuery, decodeCursor, toPage, type Page } from '@svc/server';
import { MailingAudienceResponse, MailingInboundEventResponse, MailingSyncResponse } from './mailing-audience.response';
import { consentRecordsError } from '../consent-records.errors';
import { MAILING_WEBHOOK_PATH, isMailingAudienceId, mailingAudienceView, type MailingAudience } from './mailing-audience';
import { AudienceFlows } from './audience-flows';
import { MailingAudiencesRepository, type MailingInboundEvent, type MailingSync } from './mailing-audiences.repository';
import { CreateMailingAudienceBody } from './mailing-audiences.dto';
import { CreateMailingAudience } from './use-cases/create-mailing-audience.use-case';

const AUDIENCE_RESPONSE =
  'mailing_audience: id (mla_…), object, application_id, provider (mailchimp), api_base_url, list_id, flow_id, permissions [{purpose, marketing_permission_id}], tags [{purpose, granted[], declined[]}], created_at (the API key is never returned)';
const SYNC_RESPONSE =
  'Page of mailing_sync (newest first): id, object, event_id, event_type (consent.recorded|consent.purpose_revoked|consent.record_revoked), record_id, email, status (pending|written|failed|skipped), permissions [{marketing_permission_id, enabled}], tags [{name, status}], attempts, next_attempt_at, last_status_code, last_error, occurred_at, created_at, completed_at';
const INBOUND_RESPONSE =
  'Page of mailing_inbound_event (newest first): id, object, type, email, list_id, fired_at, status (pending|withdrawn|ignored|failed), outcome, record_id, withdrawn_purposes, attempts, last_status_code, last_error, received_at, completed_at';

/**
 * Mailing-audience integrations of the caller's application (API token): connect a flow to an
 * audience of the mailing tool, read, list, delete, and read the member writes and inbound events.
 */
@Controller('api/v1/mailing_audiences')
export class MailingAudiencesController {
  constructor(
    private readonly audiences: MailingAudiencesRepository,
    private readonly audienceFlows: AudienceFlows,
    private readonly createAudience: CreateMailingAudience,
    private readonly config: PlatformConfig,
  ) {}

  /** 201; `webhook_url` (with its path secret) is in this response only. */
  @Post()
  @ApiDoc({
    tag: 'Mailing audiences',
    summary: 'Connect a flow to a mailing-tool audience (API key stored encrypted)',
    response: `${AUDIENCE_RESPONSE}, plus webhook_url (shown only here)`,
    errors: [400, 401, 403, 404, 409, 422],
  })
  @ApiResponseOf(MailingAudienceResponse)
  async create(@CurrentPrincipal() principal: Principal, @Body() body: CreateMailingAudienceBody): Promise<Record<string, unknown>> {
    const { audience, webhookSecret } = await this.createAudience.execute(principal, body);
    return { ...mailingAudienceView(audience), webhook_url: `${this.config.publicBaseUrl}/${MAILING_WEBHOOK_PATH}/${webhookSecret}` };
  }

  @Get()
  @ApiDoc({
    tag: 'Mailing audiences',
    summary: 'List mailing-audience integrations',
    response: `Page of ${AUDIENCE_RESPONSE}: data, has_more, next_cursor`,
  })
  @ApiResponseOf(MailingAudienceResponse, { page: true })
  async list(@CurrentPrincipal() principal: Principal, @Query() query: PageQuery): Promise<Page<Record<string, unknown>>> {
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    const after = query.cursor ? decodeCursor(query.cursor, ['created_at', 'id']) : undefined;
    const rows = await this.audiences.listAudiences(
      principal.applicationId,
      limit + 1,
      after ? { createdAt: after.created_at, id: after.id } : undefined,
    );
    return toPage(rows, limit, mailingAudienceView, (a) => ({ created_at: a.createdAt.toISOString(), id: a.id }));
  }

  @Get(':audience_id')
  @ApiDoc({ tag: 'Mailing audiences', summary: 'Read a mailing-audience integration', response: AUDIENCE_RESPONSE })
  @ApiResponseOf(MailingAudienceResponse)
  async get(@CurrentPrincipal() principal: Principal, @Param('audience_id') id: string): Promise<Record<string, unknown>> {
    return mailingAudienceView(await this.owned(principal, id));
  }

  /** 204; queued member writes and the inbound log go with it, and its webhook URL stops answering. */
  @Delete(':audience_id')
  @HttpCode(204)
  @ApiDoc({
    tag: 'Mailing audiences',
    summary: 'Delete a mailing-audience integration with its sync and inbound logs',
    response: 'No content',
  })
  async remove(@CurrentPrincipal() principal: Principal, @Param('audience_id') id: string): Promise<void> {
    if (!isMailingAudienceId(id)) throw notFound(id);
    const deleted = await this.audienceFlows.change(principal.applicationId, () =>
      this.audiences.deleteAudience(principal.applicationId, id),
    );
    if (!deleted) throw notFound(id);
  }

  @Get(':audience_id/syncs')
  @ApiDoc({
    tag: 'Mailing audiences',
    summary: 'Member writes of record events: what was written, when, the last error',
    response: SYNC_RESPONSE,
  })
  @ApiResponseOf(MailingSyncResponse, { page: true })
  async syncs(
    @CurrentPrincipal() principal: Principal,
    @Param('audience_id') id: string,
    @Query() query: PageQuery,
  ): Promise<Page<MailingSyncResponse>> {
    const audience = await this.owned(principal, id);
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    const before = query.cursor ? decodeCursor(query.cursor, ['id']).id : undefined;
    if (before !== undefined && !/^\d{1,18}$/.test(before)) throw invalidCursor();
    const rows = await this.audiences.listSyncs(audience.id, limit + 1, before);
    return toPage(rows, limit, syncView, (s) => ({ id: s.id }));
  }

  @Get(':audience_id/inbound_events')
  @ApiDoc({
    tag: 'Mailing audiences',
    summary: 'Events the mailing tool posted and what came of them (withdrawn, ignored)',
    response: INBOUND_RESPONSE,
  })
  @ApiResponseOf(MailingInboundEventResponse, { page: true })
  async inbound(
    @CurrentPrincipal() principal: Principal,
    @Param('audience_id') id: string,
    @Query() query: PageQuery,
  ): Promise<Page<MailingInboundEventResponse>> {
    const audience = await this.owned(principal, id);
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    const before = query.cursor ? decodeCursor(query.cursor, ['id']).id : undefined;
    if (before !== undefined && !/^\d{1,18}$/.test(before)) throw invalidCursor();
    const rows = await this.audiences.listInbound(audience.id, limit + 1, before);
    return toPage(rows, limit, inboundView, (e) => ({ id: e.id }));
  }

  private async owned(principal: Principal, id: string): Promise<MailingAudience> {
    const audience = isMailingAudienceId(id) ? await this.audiences.findAudience(principal.applicationId, id) : undefined;
    if (!audience) throw notFound(id);
    return audience;
  }
}

function notFound(id: string): Error {
  return consentRecordsError('mailing_audience_not_found', 'Mailing audience not found', { audience_id: id });
}

function invalidCursor(): Error {
  return new DomainError('invalid', 'invalid_cursor', 'cursor is not a cursor returned by this list', { field: 'cursor' });
}

function syncView(s: MailingSync): MailingSyncResponse {
  return {
    id: s.id,
    object: 'mailing_sync',
    event_id: s.eventId,
    event_type: s.eventType,
    record_id: s.recordId,
    email: s.email,
    status: s.status,
    permissions: s.permissions,
    tags: s.tags,
    attempts: s.attempts,
    next_attempt_at: s.status === 'pending' ? s.nextAttemptAt.toISOString() : null,
    last_status_code: s.lastStatusCode,
    last_error: s.lastError,
    occurred_at: s.occurredAt.toISOString(),
    created_at: s.createdAt.toISOString(),
    completed_at: s.completedAt?.toISOString() ?? null,
  };
}

function inboundView(e: MailingInboundEvent): MailingInboundEventResponse {
  return {
    id: e.id,
    object: 'mailing_inbound_event',
    type: e.type,
    email: e.email,
    list_id: e.listId,
    fired_at: e.firedAt,
    status: e.status,
    outcome: e.outcome,
    record_id: e.recordId,
    withdrawn_purposes: e.withdrawnPurposes,
    attempts: e.attempts,
    last_status_code: e.lastStatusCode,
    last_error: e.lastError,
    received_at: e.receivedAt.toISOString(),
    completed_at: e.completedAt?.toISOString() ?? null,
  };
}
