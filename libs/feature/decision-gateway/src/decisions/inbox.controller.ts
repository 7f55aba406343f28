import { Controller, Get, Query } from '@nestjs/common';
import { CurrentPrincipal, type Principal } from '@svc/auth';
import { Clock } from '@svc/config';
import { ApiDoc, ApiResponseOf, DEFAULT_PAGE_SIZE, decodeCursor, toPage, type Page } from '@svc/server';
import { InboxRowResponse } from './decision.responses';
import { inboxRowView } from './decision.views';
import { InboxQueryDto } from './decisions.dto';
import { DecisionsRepository } from './decisions.repository';
import { PeopleRepository } from '../people/people.repository';

/**
 * The unified inbox (spec, What the service does 9): one principal's pending consent and
 * approval decisions, filterable by kind, trigger type and application, sorted by deadline
 * (ascending, default) or newest first, cursor-paginated. The principal is the application's
 * identifier of a person (`principal_id`: a session's principal or one of its approvers); the API
 * token scopes the list to its application. A person's id (`usr_…`) lists the sessions of the
 * references the application linked to that person, and nothing for a person it has no link to.
 * `GET /inbox` is the signed-in person's page (people).
 */
@Controller()
export class InboxController {
  constructor(
    private readonly sessions: DecisionsRepository,
    private readonly clock: Clock,
    private readonly people: PeopleRepository,
  ) {}

  @Get('api/v1/inbox')
  @ApiDoc({
    tag: 'Inbox',
    summary: 'Pending consent and approval decisions of one principal',
    response:
      'Page of rows: session_token, kind, status, application_id, trigger_type, flow_id, reference, deadline, created_at, decision_url',
  })
  @ApiResponseOf(InboxRowResponse, { page: true })
  async list(@CurrentPrincipal() principal: Principal, @Query() query: InboxQueryDto): Promise<Page<InboxRowResponse>> {
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    const sort = query.sort ?? 'deadline';
    // Another application's id answers like an unknown one: nothing pending there for this caller.
    if (query.application_id !== undefined && query.application_id !== principal.applicationId)
      return { data: [], has_more: false, next_cursor: null };
    const after = query.cursor ? decodeCursor(query.cursor, ['at', 't']) : undefined;
    // A person (`usr_…`) is listed through the references this application linked to them, and
    // through sessions naming them; a person the application has no link to has nothing here.
    let principalIds = [query.principal_id];
    if (/^usr_[a-z]+_[a-z2-7]{20}$/.test(query.principal_id)) {
      const links = await this.people.listLinksOfApplication(principal.applicationId, 201, undefined, query.principal_id);
      if (links.length === 0) return { data: [], has_more: false, next_cursor: null };
      principalIds = [query.principal_id, ...links.filter((l) => l.subjectKind === 'external_id').map((l) => l.subjectValue)];
    }
    const rows = await this.sessions.inbox({
      applicationId: principal.applicationId,
      principalIds,
      kind: query.kind,
      triggerType: query.trigger_type,
      sort,
      now: this.clock.now(),
      limit: limit + 1,
      after: after ? { at: after.at, token: after.t } : undefined,
    });
    return toPage(rows, limit, inboxRowView, (r) => ({
      at: (sort === 'newest' ? r.createdAt : r.deadline).toISOString(),
      t: r.tokenSha256,
    }));
  }
}
