import { Controller, Delete, Get, Param, Query } from '@nestjs/common';
import { Auth, CurrentPrincipal, authError, type Principal } from '@svc/auth';
import { IsIdOf } from '@svc/ids';
import { ApiDoc, ApiResponseOf, DEFAULT_PAGE_SIZE, PageQuery, decodeCursor, encodeCursor, type Page } from '@svc/server';
import { IsOptional } from 'class-validator';
import { gatewayError } from '../gateway.errors';
import { ConnectionResponse, DisconnectionResponse, connectionView, disconnectionView } from './connections.response';
import { PersonConnections } from './use-cases/person-connections.use-case';

/** Query of GET /api/v1/connections. */
export class ListConnectionsQuery extends PageQuery {
  /** Only this application's connection. */
  @IsOptional()
  @IsIdOf('application')
  application_id?: string;
}

function personOf(principal: Principal): string {
  if (!principal.personId) throw authError('invalid_token', "This route needs a person's access token");
  return principal.personId;
}

/**
 * Connect: the signed-in person's connections (their own OAuth access token, like /api/v1/me):
 * every application holding a consent of theirs, an authority they granted, a delegation grant or
 * an OAuth grant; and ending them per application or all at once. The hosted page `/connections`
 * shows the same for the browser.
 */
@Controller('api/v1/connections')
@Auth('access_token')
export class ConnectionsController {
  constructor(private readonly connections: PersonConnections) {}

  @Get()
  @ApiDoc({
    tag: 'Connect',
    summary:
      'The applications connected to the signed-in person (person access token): consents, authorities, delegations, OAuth grants; by application id; limit, cursor',
    errors: [400, 401, 403],
  })
  @ApiResponseOf(ConnectionResponse, { page: true })
  async list(@CurrentPrincipal() principal: Principal, @Query() query: ListConnectionsQuery): Promise<Page<ConnectionResponse>> {
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    const after = query.cursor ? decodeCursor(query.cursor, ['application_id']).application_id : undefined;
    const all = (await this.connections.list(personOf(principal), query.application_id)).filter(
      (c) => after === undefined || c.applicationId > after,
    );
    const page = all.slice(0, limit);
    const last = page[page.length - 1];
    const hasMore = all.length > limit;
    return {
      data: page.map(connectionView),
      has_more: hasMore,
      next_cursor: hasMore && last ? encodeCursor({ application_id: last.applicationId }) : null,
    };
  }

  @Get(':application_id')
  @ApiDoc({
    tag: 'Connect',
    summary: "One application's connection to the signed-in person (404 when nothing connects them)",
    errors: [401, 403, 404, 421],
  })
  @ApiResponseOf(ConnectionResponse)
  async get(@CurrentPrincipal() principal: Principal, @Param('application_id') applicationId: string): Promise<ConnectionResponse> {
    const [found] = await this.connections.list(personOf(principal), applicationId);
    if (!found) throw gatewayError('connection_not_found', 'Nothing connects this application to you', { application_id: applicationId });
    return connectionView(found);
  }

  @Delete(':application_id')
  @ApiDoc({
    tag: 'Connect',
    summary:
      'Disconnect one application: withdraw its consents, revoke the authorities, delegation grants and OAuth grants (each as its own revocation: same events, so webhooks, Shared Signals and svc-verify follow)',
    errors: [401, 403, 404, 421],
  })
  @ApiResponseOf(DisconnectionResponse)
  async disconnect(
    @CurrentPrincipal() principal: Principal,
    @Param('application_id') applicationId: string,
  ): Promise<DisconnectionResponse> {
    const personId = personOf(principal);
    const [found] = await this.connections.list(personId, applicationId);
    if (!found) throw gatewayError('connection_not_found', 'Nothing connects this application to you', { application_id: applicationId });
    return disconnectionView(applicationId, await this.connections.disconnect(principal, personId, applicationId));
  }

  @Delete()
  @ApiDoc({ tag: 'Connect', summary: 'Disconnect every application from the signed-in person at once', errors: [401, 403] })
  @ApiResponseOf(DisconnectionResponse)
  async disconnectAll(@CurrentPrincipal() principal: Principal): Promise<DisconnectionResponse> {
    return disconnectionView(null, await this.connections.disconnect(principal, personOf(principal)));
  }
}
