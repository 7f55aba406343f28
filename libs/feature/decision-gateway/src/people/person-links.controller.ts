import { Body, Controller, Delete, Get, Param, Post, Query, Res } from '@nestjs/common';
import { CurrentPrincipal, type Principal } from '@svc/auth';
import { ApiDoc, ApiResponseOf, DEFAULT_PAGE_SIZE, decodeCursor, toPage, type Page } from '@svc/server';
import type { FastifyReply } from 'fastify';
import { ApplicationsRepository } from '../applications/applications.repository';
import { ownedApplication } from '../applications/use-cases/owned-application';
import { CreatePersonLinkBody, ListPersonLinksQuery } from './people.dto';
import { PeopleRepository } from './people.repository';
import { PersonLinkEnvelopeResponse, PersonLinkResponse, personLinkView } from './people.responses';
import { PersonLinks } from './use-cases/person-links.use-case';

/** An application's links between its subject references and people (API token). */
@Controller('api/v1/applications/:application_id/person_links')
export class PersonLinksController {
  constructor(
    private readonly links: PersonLinks,
    private readonly people: PeopleRepository,
    private readonly applications: ApplicationsRepository,
  ) {}

  /** 201 when new, 200 when the same link existed (idempotent retry); 409 when the reference is another person's. */
  @Post()
  @ApiResponseOf(PersonLinkEnvelopeResponse, { status: 201 })
  @ApiResponseOf(PersonLinkEnvelopeResponse, { status: 200 })
  @ApiDoc({
    tag: 'People',
    summary: 'Link a subject reference (external_id or email) of the application to a person',
    errors: [400, 401, 404, 409, 421, 422],
  })
  async create(
    @CurrentPrincipal() principal: Principal,
    @Param('application_id') applicationId: string,
    @Body() body: CreatePersonLinkBody,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<PersonLinkEnvelopeResponse> {
    const { link, created } = await this.links.create(principal, applicationId, body.person_id, body.subject);
    void reply.status(created ? 201 : 200);
    return { person_link: personLinkView(link) };
  }

  @Get()
  @ApiResponseOf(PersonLinkResponse, { page: true })
  @ApiDoc({
    tag: 'People',
    summary: "The application's person links, oldest first; query person_id, limit, cursor",
    errors: [400, 401, 404],
  })
  async list(
    @CurrentPrincipal() principal: Principal,
    @Param('application_id') applicationId: string,
    @Query() query: ListPersonLinksQuery,
  ): Promise<Page<PersonLinkResponse>> {
    const app = await ownedApplication(this.applications, principal, applicationId);
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    const after = query.cursor ? decodeCursor(query.cursor, ['created_at', 'id']) : undefined;
    const rows = await this.people.listLinksOfApplication(
      app.id,
      limit + 1,
      after ? { createdAt: after.created_at, id: after.id } : undefined,
      query.person_id,
    );
    return toPage(rows, limit, personLinkView, (r) => ({ created_at: r.createdAt.toISOString(), id: r.id }));
  }

  @Delete(':person_link_id')
  @ApiResponseOf(PersonLinkEnvelopeResponse)
  @ApiDoc({ tag: 'People', summary: 'Remove a person link', errors: [401, 404] })
  async remove(
    @CurrentPrincipal() principal: Principal,
    @Param('application_id') applicationId: string,
    @Param('person_link_id') linkId: string,
  ): Promise<PersonLinkEnvelopeResponse> {
    return { person_link: personLinkView(await this.links.remove(principal, applicationId, linkId)) };
  }
}
