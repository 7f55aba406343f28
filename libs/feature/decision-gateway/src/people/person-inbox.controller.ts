import { Controller, Get, Query, Req, Res } from '@nestjs/common';
import { Public } from '@svc/auth';
import { Clock } from '@svc/config';
import { ApiDoc, DEFAULT_PAGE_SIZE, decodeCursor, encodeCursor } from '@svc/server';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { contentSecurityPolicy, newNonce, sendHtml } from '../hosted/page-security';
import { PersonInboxQuery } from './people.dto';
import { peopleLocale } from './people-i18n';
import { renderInboxPage } from './people-pages';
import { PeopleRepository } from './people.repository';
import { PersonSessionsService } from './person-sessions.service';
import { WEBAUTHN_INTEGRITY } from './webauthn-asset';

/**
 * The person's inbox page (spec, What the service does 9): signed in, their pending consent and
 * approval decisions across applications — sessions naming them or a subject reference an
 * application linked to them — filtered by kind, trigger type and application, sorted by deadline
 * (default) or newest first, cursor-paginated; each row links to its decision page. Applications
 * keep the JSON list at `GET /api/v1/inbox`.
 */
@Controller()
export class PersonInboxController {
  constructor(
    private readonly sessions: PersonSessionsService,
    private readonly people: PeopleRepository,
    private readonly clock: Clock,
  ) {}

  @Get('inbox')
  @Public()
  @ApiDoc({
    tag: 'People',
    summary:
      "The signed-in person's inbox page (HTML); query kind, trigger_type, application_id, sort (deadline | newest), limit, cursor; 303 to sign-in when signed out",
    response: 'The inbox page',
    produces: 'text/html',
    errors: [422],
  })
  async page(@Req() request: FastifyRequest, @Query() query: PersonInboxQuery, @Res() reply: FastifyReply): Promise<FastifyReply> {
    const person = await this.sessions.fromRequest(request.raw);
    if (!person)
      return reply.code(303).header('location', this.sessions.signInPath(request.url)).header('cache-control', 'no-store').send();
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    const sort = query.sort ?? 'deadline';
    const after = query.cursor ? decodeCursor(query.cursor, ['at', 't']) : undefined;
    const rows = await this.people.personInbox({
      personId: person.personId,
      now: this.clock.now(),
      kind: query.kind,
      triggerType: query.trigger_type,
      applicationId: query.application_id,
      sort,
      after: after ? { at: after.at, token: after.t } : undefined,
      limit: limit + 1,
    });
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    const nextCursor =
      rows.length > limit && last
        ? encodeCursor({ at: (sort === 'newest' ? last.created_at : last.deadline).toISOString(), t: last.token_sha256 })
        : null;
    const nonce = newNonce();
    const html = renderInboxPage({
      locale: peopleLocale(person.locale),
      nonce,
      webauthnIntegrity: WEBAUTHN_INTEGRITY,
      returnTo: '/inbox',
      timeZone: person.timeZone,
      filters: { kind: query.kind, trigger_type: query.trigger_type, application_id: query.application_id, sort: query.sort },
      nextCursor,
      rows: page.map((r) => ({
        kind: r.kind,
        applicationId: r.application_id,
        applicationName: r.application_name,
        triggerType: r.trigger_type,
        reference: r.reference,
        deadline: r.deadline,
        decisionUrl: r.decision_url,
      })),
    });
    return sendHtml(reply, 200, html, contentSecurityPolicy(nonce, []));
  }
}
