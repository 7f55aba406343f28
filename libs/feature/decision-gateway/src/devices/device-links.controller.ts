import { createHash, randomBytes } from 'node:crypto';
import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query, Req } from '@nestjs/common';
import { Public } from '@svc/auth';
import { Clock, PlatformConfig } from '@svc/config';
import { DomainError } from '@svc/errors';
import { newRegionalId } from '@svc/ids';
import { ApiDoc, ApiResponseOf, DEFAULT_PAGE_SIZE, PageQuery, decodeCursor, toPage, type Page } from '@svc/server';
import type { FastifyRequest } from 'fastify';
import { assertSameOrigin } from '../people/same-origin';
import { peopleError } from '../people/people.errors';
import type { SignedInPerson } from '../people/person-sessions.port';
import { PersonSessionsService } from '../people/person-sessions.service';
import { LINK_CODE_TTL_SECONDS, MAX_DEVICE_LINKS } from './device-link';
import { DevicePush } from './device-push';
import { RegisterDeviceBody } from './device-links.dto';
import { deviceLinkError } from './device-links.errors';
import { DeviceLinksRepository } from './device-links.repository';
import { DeviceLinkCreatedResponse, DeviceLinkEnvelopeResponse, DeviceLinkResponse, deviceLinkView } from './device-links.responses';

const sha256 = (value: string): string => createHash('sha256').update(value).digest('hex');

/**
 * Device links (spec, Connect: `/device_links`): a signed-in person links a phone from the inbox
 * page by a one-time link code (shown as text and URL; a QR code when the deployment renders one);
 * the phone registers its Web Push subscription with the code; approval and signing requests then
 * reach it by push (and always appear in the inbox). The person lists and revokes their links.
 * The person's calls use the sign-in cookie and refuse another origin; the phone's registration is
 * authenticated by the code alone (single use, 10 minutes).
 */
@Controller('api/v1/device_links')
export class DeviceLinksController {
  private readonly origin: string;

  constructor(
    private readonly sessions: PersonSessionsService,
    private readonly links: DeviceLinksRepository,
    private readonly push: DevicePush,
    private readonly clock: Clock,
    private readonly config: PlatformConfig,
  ) {
    this.origin = new URL(config.PUBLIC_BASE_URL).origin;
  }

  @Post()
  @Public()
  @HttpCode(201)
  @ApiResponseOf(DeviceLinkCreatedResponse, { status: 201 })
  @ApiDoc({
    tag: 'Device links',
    summary: 'Start linking a phone (signed-in person): a pending link and its one-time link code, link URL and push settings',
    errors: [401, 403, 409],
  })
  async create(@Req() request: FastifyRequest): Promise<DeviceLinkCreatedResponse> {
    assertSameOrigin(request, this.origin);
    const person = await this.signedIn(request);
    // qrcode is loaded with the first device link (before anything is written): a process that
    // makes none never loads it.
    const qrcode = await import('qrcode');
    const now = this.clock.now();
    const code = randomBytes(32).toString('base64url');
    const link = await this.links.insertPending(
      {
        id: newRegionalId('device_link', this.config.REGION),
        personId: person.personId,
        codeSha256: sha256(code),
        codeExpiresAt: new Date(now.getTime() + LINK_CODE_TTL_SECONDS * 1000),
        createdAt: now,
      },
      MAX_DEVICE_LINKS,
    );
    if (!link) throw deviceLinkError('device_link_limit', `At most ${MAX_DEVICE_LINKS} devices can be linked or waiting; revoke one first`);
    const settings = this.push.settings;
    const linkUrl = `${this.config.publicBaseUrl}/people/devices/link#code=${code}`;
    return {
      device_link: deviceLinkView(link),
      link_code: code,
      link_url: linkUrl,
      // What the phone's camera scans on the inbox page.
      qr_svg: await qrcode.toString(linkUrl, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 }),
      push: { enabled: settings.enabled, vapid_public_key: settings.vapidPublicKey },
    };
  }

  @Post('registrations')
  @Public()
  @HttpCode(201)
  @ApiResponseOf(DeviceLinkEnvelopeResponse, { status: 201 })
  @ApiDoc({
    tag: 'Device links',
    summary: 'The phone registers its Web Push subscription with the link code it scanned (the code is the credential, single use)',
    errors: [400, 410, 415, 422, 503],
  })
  async register(@Body() body: RegisterDeviceBody): Promise<DeviceLinkEnvelopeResponse> {
    if (!this.push.settings.enabled) {
      // A code that could never register answers as such first; a live one learns that push is off.
      if (!(await this.links.pendingCodeExists(sha256(body.link_code), this.clock.now())))
        throw deviceLinkError('link_code_invalid', 'This link code is unknown, used or expired; make a new one on the inbox page');
      throw deviceLinkError(
        'push_not_configured',
        'Web Push is not configured on this platform, so a device cannot receive requests; use the inbox',
      );
    }
    if (
      !/^[A-Za-z0-9_-]{86,88}={0,2}$/.test(body.subscription.keys.p256dh) ||
      Buffer.from(body.subscription.keys.p256dh, 'base64url').length !== 65
    ) {
      throw deviceLinkError('push_subscription_invalid', 'subscription.keys.p256dh must be base64url of a 65-byte P-256 public key', {
        field: 'subscription.keys.p256dh',
      });
    }
    if (!this.push.endpointAllowed(body.subscription.endpoint))
      throw deviceLinkError('push_endpoint_not_allowed', 'The subscription endpoint is not on a push service this platform sends to', {
        field: 'subscription.endpoint',
      });
    const link = await this.links.claim(sha256(body.link_code), this.clock.now(), {
      name: body.device_name ?? null,
      endpoint: body.subscription.endpoint,
      p256dh: body.subscription.keys.p256dh,
      auth: body.subscription.keys.auth,
    });
    if (!link) throw deviceLinkError('link_code_invalid', 'This link code is unknown, used or expired; make a new one on the inbox page');
    return { device_link: deviceLinkView(link) };
  }

  @Get()
  @Public()
  @ApiResponseOf(DeviceLinkResponse, { page: true })
  @ApiDoc({
    tag: 'Device links',
    summary: "The signed-in person's device links, oldest first (revoked ones included); cursor pagination, at most 200 a page",
    errors: [400, 401],
  })
  async list(@Req() request: FastifyRequest, @Query() query: PageQuery): Promise<Page<DeviceLinkResponse>> {
    const person = await this.signedIn(request);
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    const after = query.cursor ? decodeCursor(query.cursor, ['at', 'id']) : undefined;
    if (after && (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/.test(after.at) || !/^dvl_[a-z]{2}_[a-z2-7]{20}$/.test(after.id))) {
      throw new DomainError('invalid', 'invalid_cursor', 'cursor is not a cursor returned by this list', { field: 'cursor' });
    }
    const rows = await this.links.listOfPerson(person.personId, limit + 1, after ? { createdAt: after.at, id: after.id } : undefined);
    return toPage(rows, limit, deviceLinkView, (l) => ({ at: l.createdAt.toISOString(), id: l.id }));
  }

  @Delete(':device_link_id')
  @Public()
  @ApiResponseOf(DeviceLinkEnvelopeResponse)
  @ApiDoc({
    tag: 'Device links',
    summary: "Revoke one of the signed-in person's device links: no push reaches it again",
    errors: [401, 403, 404],
  })
  async revoke(@Req() request: FastifyRequest, @Param('device_link_id') id: string): Promise<DeviceLinkEnvelopeResponse> {
    assertSameOrigin(request, this.origin);
    const person = await this.signedIn(request);
    const link = /^dvl_[a-z]{2}_[a-z2-7]{20}$/.test(id) ? await this.links.revoke(person.personId, id, this.clock.now()) : undefined;
    if (!link) throw deviceLinkError('device_link_not_found', 'Device link not found', { device_link_id: id });
    return { device_link: deviceLinkView(link) };
  }

  private async signedIn(request: FastifyRequest): Promise<SignedInPerson> {
    const person = await this.sessions.fromRequest(request.raw);
    if (!person) throw peopleError('sign_in_required', 'Sign in first', { sign_in_url: this.sessions.signInPath('/inbox') });
    return person;
  }
}
