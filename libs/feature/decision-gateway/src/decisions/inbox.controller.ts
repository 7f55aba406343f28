import { Controller, Get, Query } from '@nestjs/common';
import { CurrentPrincipal, type Principal } from '@svc/auth';
import { Clock } from '@svc/config';
import { ApiDoc, ApiResponseOf, DEFAULT_PAGE_SIZE, decodeCursor, toPage, type Page } from '@svc/server';
import { InboxRowResponse } from './decision.responses';
import { inboxRowView } from './decision.views';
import { InboxQueryDto } from './decisions.dto';
import { DecisionsRepository } from './decisions.repository';

/**
 * The unified inbox (spec, What the service does 9): one principal's pending consent and
 * approval decisions, filterable by kind, trigger type and application, sorted by deadline
 * (ascending, default) or newest first, cursor-paginated. The principal is the application's
 * identifier of a person (`principal_id`: a session's principal or one of its approvers); the API
 * token scopes the list to its application. `GET /inbox` answers the same JSON; the rendered page
 * and end-user sign-in come with the hosted pages.
 */
@Controller()
export class InboxController {
  constructor(
    private readonly sessions: DecisionsRepository,
    private readonly clock: Clock,
  ) {}

  @Get(['api/v1/inbox', 'inbox'])
  @ApiDoc({ tag: 'Inbox', summary: 'Pending consent and approval decisions of one principal', response: 'Page of rows: session_token, kind, status, application_id, trigger_type, flow_id, reference, deadline, created_at, decision_url' })
  @ApiResponseOf(InboxRowResponse, { page: true })
  async list(@CurrentPrincipal() principal: Principal, @Query() query: InboxQueryDto): Promise<Page<InboxRowResponse>> {
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    const sort = query.sort ?? 'deadline';
    // Another application's id answers like an unknown one: nothing pending there for this caller.
    if (query.application_id !== undefined && query.application_id !== principal.applicationId) return { data: [], has_more: false, next_cursor: null };
    const after = query.cursor ? decodeCursor(query.cursor, ['at', 't']) : undefined;
    const rows = await this.sessions.inbox({
      applicationId: principal.applicationId,
      principalId: query.principal_id,
      kind: query.kind,
      triggerType: query.trigger_type,
      sort,
      now: this.clock.now(),
      limit: limit + 1,
      after: after ? { at: after.at, token: after.t } : undefined,
    });
    return toPage(rows, limit, inboxRowView, (r) => ({ at: (sort === 'newest' ? r.createdAt : r.deadline).toISOString(), t: r.tokenSha256 }));
  }
}
