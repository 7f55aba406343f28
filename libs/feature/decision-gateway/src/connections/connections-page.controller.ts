import { Controller, Get, HttpCode, Param, Post, Req, Res } from '@nestjs/common';
import { Public, type Principal } from '@svc/auth';
import { PlatformConfig } from '@svc/config';
import { isIdOf } from '@svc/ids';
import { ApiDoc, ApiResponseOf } from '@svc/server';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { gatewayError } from '../gateway.errors';
import { contentSecurityPolicy, newNonce, sendHtml } from '../hosted/page-security';
import { peopleLocale } from '../people/people-i18n';
import { peopleError } from '../people/people.errors';
import { PersonSessionsService } from '../people/person-sessions.service';
import { assertSameOrigin } from '../people/same-origin';
import { renderConnectionsPage } from './connections-page';
import { DisconnectionResponse, disconnectionView } from './connections.response';
import { PersonConnections } from './use-cases/person-connections.use-case';

/**
 * The signed-in person's connections page (sign-in cookie, like `/inbox`): every connected
 * application with what connects it, and a disconnect button per application and for all. The
 * buttons post JSON to this origin; a call from another site (Origin, else Sec-Fetch-Site) is
 * refused, and the cookie is SameSite=Lax, so another site cannot disconnect anything.
 */
@Controller('connections')
export class ConnectionsPageController {
  private readonly origin: string;

  constructor(
    private readonly sessions: PersonSessionsService,
    private readonly connections: PersonConnections,
    platform: PlatformConfig,
  ) {
    this.origin = new URL(platform.PUBLIC_BASE_URL).origin;
  }

  @Get()
  @Public()
  @ApiDoc({
    tag: 'People',
    summary: "The signed-in person's connected applications page (HTML), with a disconnect button each; 303 to sign-in when signed out",
    response: 'The connections page',
    produces: 'text/html',
  })
  async page(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<FastifyReply> {
    const person = await this.sessions.fromRequest(request.raw);
    if (!person)
      return reply.code(303).header('location', this.sessions.signInPath('/connections')).header('cache-control', 'no-store').send();
    const nonce = newNonce();
    const locale = peopleLocale(person.locale);
    const html = renderConnectionsPage({ locale, nonce, connections: await this.connections.list(person.personId) });
    return sendHtml(reply, 200, html, contentSecurityPolicy(nonce, []), locale);
  }

  @Post('revoke_all')
  @Public()
  @HttpCode(200)
  @ApiDoc({
    tag: 'People',
    summary: 'The signed-in person disconnects every application (same-origin JSON post of the connections page)',
    errors: [400, 401, 403],
  })
  @ApiResponseOf(DisconnectionResponse)
  async revokeAll(@Req() request: FastifyRequest): Promise<DisconnectionResponse> {
    const { principal, personId } = await this.signedIn(request);
    return disconnectionView(null, await this.connections.disconnect(principal, personId));
  }

  @Post(':application_id/revoke')
  @Public()
  @HttpCode(200)
  @ApiDoc({
    tag: 'People',
    summary: 'The signed-in person disconnects one application (same-origin JSON post of the connections page)',
    errors: [400, 401, 403, 404, 421],
  })
  @ApiResponseOf(DisconnectionResponse)
  async revoke(@Req() request: FastifyRequest, @Param('application_id') applicationId: string): Promise<DisconnectionResponse> {
    const { principal, personId } = await this.signedIn(request);
    const [found] = isIdOf('application', applicationId) ? await this.connections.list(personId, applicationId) : [];
    if (!found)
      throw gatewayError('connection_not_found', 'Nothing connects this application to you', {
        application_id: applicationId.slice(0, 100),
      });
    return disconnectionView(applicationId, await this.connections.disconnect(principal, personId, applicationId));
  }

  /** The person of the sign-in cookie, after refusing calls from other sites. */
  private async signedIn(request: FastifyRequest): Promise<{ principal: Principal; personId: string }> {
    assertSameOrigin(request, this.origin);
    const person = await this.sessions.fromRequest(request.raw);
    if (!person) throw peopleError('sign_in_required', 'Sign in first', { sign_in_url: this.sessions.signInPath('/connections') });
    // The person acting on their own account, as with their own access token.
    const principal: Principal = {
      kind: 'access_token',
      applicationId: '',
      credentialId: 'connections_page',
      scopes: [],
      environment: 'development',
      region: '',
      mode: '',
      personId: person.personId,
    };
    return { principal, personId: person.personId };
  }
}
