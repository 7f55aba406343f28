import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { Auth, CurrentPrincipal, Public, type Principal } from '@svc/auth';
import { Clock } from '@svc/config';
import { ApiDoc, ApiResponseOf, DEFAULT_PAGE_SIZE, decodeCursor, toPage, type Page } from '@svc/server';
import { checkedInstant } from '../collaborations/collaborations.service';
import {
  CreateDataRequestBody,
  ExportQuery,
  ExtendDataRequestBody,
  ListDataRequestsQuery,
  RejectDataRequestBody,
} from './data-requests.dto';
import { DataRequestExportDocumentResponse, DataRequestResponse, dataRequestView } from './data-requests.response';
import { DataRequestsService, ownerOf } from './data-requests.service';
import { DataRequestsRepository } from './data-requests.repository';
import { DataRequestExports } from './use-cases/data-request-exports';

/**
 * Protect: data subject requests (`/api/v1/data_requests`). The person raises one with their own
 * access token, or the application for a person it linked (API token); the application moves it
 * (start, extend once, complete, reject) against its 30-day legal clock.
 */
@Controller('api/v1/data_requests')
@Auth('api_token', 'access_token')
export class DataRequestsController {
  constructor(
    private readonly service: DataRequestsService,
    private readonly requests: DataRequestsRepository,
    private readonly exports: DataRequestExports,
    private readonly clock: Clock,
  ) {}

  @Post()
  @ApiDoc({
    tag: 'Protect',
    summary:
      'Raise a data subject request (access, portability, rectification, erasure, objection, restriction): by the signed-in person (access token) or by the application for a person it linked (API token, person_id); due 30 days after receipt',
    errors: [400, 401, 403, 421, 422],
  })
  @ApiResponseOf(DataRequestResponse, { status: 201 })
  async create(@CurrentPrincipal() principal: Principal, @Body() body: CreateDataRequestBody): Promise<DataRequestResponse> {
    const request = await this.service.create(principal, {
      kind: body.kind,
      personId: body.person_id,
      purposes: body.purposes,
      rectification: body.rectification ? { displayName: body.rectification.display_name, email: body.rectification.email } : undefined,
    });
    return dataRequestView(request, this.clock.now());
  }

  @Get()
  @ApiDoc({
    tag: 'Protect',
    summary:
      "The caller's data requests, oldest first: an application's (API token; person_id filter) or the person's own (access token); status, kind, limit, cursor",
    errors: [400, 401, 403, 421],
  })
  @ApiResponseOf(DataRequestResponse, { page: true })
  async list(@CurrentPrincipal() principal: Principal, @Query() query: ListDataRequestsQuery): Promise<Page<DataRequestResponse>> {
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    const after = query.cursor ? decodeCursor(query.cursor, ['received_at', 'id']) : undefined;
    const rows = await this.requests.list(
      ownerOf(principal),
      { status: query.status, kind: query.kind, personId: query.person_id },
      limit + 1,
      after ? { receivedAt: checkedInstant(after.received_at), id: after.id } : undefined,
    );
    const now = this.clock.now();
    const page = toPage(
      rows,
      limit,
      (r) => r,
      (r) => ({ received_at: r.receivedAt.toISOString(), id: r.id }),
    );
    return { ...page, data: await Promise.all(page.data.map(async (r) => dataRequestView(r, now, await this.exports.view(r, now)))) };
  }

  @Get(':data_request_id')
  @ApiDoc({
    tag: 'Protect',
    summary:
      'Read a data request: state, deadline, extension, result and, for a completed access or portability request, its download link and manifest',
    errors: [401, 403, 404, 421],
  })
  @ApiResponseOf(DataRequestResponse)
  async get(@CurrentPrincipal() principal: Principal, @Param('data_request_id') id: string): Promise<DataRequestResponse> {
    const request = await this.service.read(principal, id);
    const now = this.clock.now();
    return dataRequestView(request, now, await this.exports.view(request, now));
  }

  @Post(':data_request_id/start')
  @HttpCode(200)
  @Auth('api_token')
  @ApiDoc({
    tag: 'Protect',
    summary: 'The application starts working on a received request (received → in_progress)',
    errors: [401, 403, 404, 409, 421],
  })
  @ApiResponseOf(DataRequestResponse)
  async start(@CurrentPrincipal() principal: Principal, @Param('data_request_id') id: string): Promise<DataRequestResponse> {
    return dataRequestView(await this.service.start(principal, id), this.clock.now());
  }

  @Post(':data_request_id/extend')
  @HttpCode(200)
  @Auth('api_token')
  @ApiDoc({
    tag: 'Protect',
    summary: 'Extend the deadline once, with a reason, by 1-60 days (GDPR Art. 12(3)); refused once overdue',
    errors: [400, 401, 403, 404, 409, 421, 422],
  })
  @ApiResponseOf(DataRequestResponse)
  async extend(
    @CurrentPrincipal() principal: Principal,
    @Param('data_request_id') id: string,
    @Body() body: ExtendDataRequestBody,
  ): Promise<DataRequestResponse> {
    return dataRequestView(await this.service.extend(principal, id, body.days, body.reason), this.clock.now());
  }

  @Post(':data_request_id/reject')
  @HttpCode(200)
  @Auth('api_token')
  @ApiDoc({
    tag: 'Protect',
    summary: 'Reject an open request with the reason told to the person (Art. 12(4))',
    errors: [400, 401, 403, 404, 409, 421],
  })
  @ApiResponseOf(DataRequestResponse)
  async reject(
    @CurrentPrincipal() principal: Principal,
    @Param('data_request_id') id: string,
    @Body() body: RejectDataRequestBody,
  ): Promise<DataRequestResponse> {
    return dataRequestView(await this.service.reject(principal, id, body.reason), this.clock.now());
  }

  @Post(':data_request_id/complete')
  @HttpCode(200)
  @Auth('api_token')
  @ApiDoc({
    tag: 'Protect',
    summary:
      'Fulfil and complete an open request: access/portability build the export (download link, 7 days), erasure erases, objection withdraws the named purposes, restriction marks them restricted, rectification updates the contact data',
    errors: [401, 403, 404, 409, 421],
  })
  @ApiResponseOf(DataRequestResponse)
  async complete(@CurrentPrincipal() principal: Principal, @Param('data_request_id') id: string): Promise<DataRequestResponse> {
    const request = await this.service.complete(principal, id);
    const now = this.clock.now();
    return dataRequestView(request, now, await this.exports.view(request, now));
  }

  @Get(':data_request_id/export')
  @Public()
  @ApiDoc({
    tag: 'Protect',
    summary: "Download a completed access or portability request's export (the link's token is the capability; 404 once expired or erased)",
    errors: [400, 404, 421],
  })
  @ApiResponseOf(DataRequestExportDocumentResponse)
  async download(@Param('data_request_id') id: string, @Query() query: ExportQuery): Promise<DataRequestExportDocumentResponse> {
    return (await this.exports.download(id, query.token)) satisfies DataRequestExportDocumentResponse;
  }
}
