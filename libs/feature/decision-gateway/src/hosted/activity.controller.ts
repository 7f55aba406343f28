import { Controller, Get, Param, Query } from '@nestjs/common';
import { CurrentPrincipal, type Principal } from '@svc/auth';
import { DomainError } from '@svc/errors';
import { ApiDoc, ApiResponseOf, DEFAULT_PAGE_SIZE, PageQuery, decodeCursor, toPage, type Page } from '@svc/server';
import { hostedError } from './hosted.errors';
import { HostedRepository, type ActivityEvent } from './hosted.repository';
import { ActivityEventResponse } from './hosted.responses';

function activityView(event: ActivityEvent): ActivityEventResponse {
  return {
    id: event.id,
    object: 'activity_event',
    type: event.type,
    origin: event.origin,
    method: event.method,
    path: event.path,
    occurred_at: event.occurredAt.toISOString(),
  } satisfies ActivityEventResponse;
}

/** The application's Activity tab: browser-surface events such as `cors.preflight_denied`. */
@Controller('api/v1/applications/:application_id/activity')
export class ActivityController {
  constructor(private readonly hosted: HostedRepository) {}

  /** Newest first, cursor-paginated; another application's id answers 404 like an unknown one. */
  @Get()
  @ApiDoc({
    tag: 'Applications',
    summary: 'Activity events of the application (cors.preflight_denied, …), newest first',
    response: 'A page of activity events, newest first',
    errors: [400, 401, 403, 404],
  })
  @ApiResponseOf(ActivityEventResponse, { page: true })
  async list(
    @CurrentPrincipal() principal: Principal,
    @Param('application_id') id: string,
    @Query() query: PageQuery,
  ): Promise<Page<ActivityEventResponse>> {
    if (principal.applicationId !== id || !(await this.hosted.applicationExists(id)))
      throw hostedError('application_not_found', 'Application not found');
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    const after = query.cursor ? decodeCursor(query.cursor, ['seq']).seq : undefined;
    if (after !== undefined && !/^\d{1,18}$/.test(after))
      throw new DomainError('invalid', 'invalid_cursor', 'cursor is not a cursor returned by this list', { field: 'cursor' });
    const rows = await this.hosted.listActivity(id, limit + 1, after);
    return toPage(rows, limit, activityView, (r) => ({ seq: r.seq }));
  }
}
