import { Body, Controller, Get, Header, HttpCode, Param, Post, Req } from '@nestjs/common';
import { Auth, CurrentPrincipal, Public, type Principal } from '@svc/auth';
import { ApiDoc, ApiResponseOf } from '@svc/server';
import { CaptureAuthorizedResponse, CaptureResponse, ConsentFieldResponse } from './capture.response';
import type { FastifyRequest } from 'fastify';
import { AuthorizeCaptureBody, CreateCaptureBody } from './captures.dto';
import { CONSENT_FIELD_JS } from './field-source';
import { CAPTURE_SNIPPET_JS } from './snippet-source';
import { AuthorizeCapture } from './use-cases/authorize-capture.use-case';
import { CreateCapture } from './use-cases/create-capture.use-case';
import { RenderConsentField } from './use-cases/render-consent-field.use-case';

/**
 * Capture in an organisation's own forms: the served snippet and consent field, the field's
 * rendering and capture creation (browser), and commit (server).
 */
@Controller()
export class CapturesController {
  constructor(
    private readonly createCapture: CreateCapture,
    private readonly authorizeCapture: AuthorizeCapture,
    private readonly renderConsentField: RenderConsentField,
  ) {}

  @Get('capture/v1/snippet.js')
  @Public()
  @Header('content-type', 'application/javascript; charset=utf-8')
  @Header('cache-control', 'public, max-age=300')
  @ApiDoc({
    tag: 'Capture',
    summary: "The capture snippet (plain JavaScript) binding an organisation's own form controls",
    response: 'application/javascript',
  })
  snippet(): string {
    return CAPTURE_SNIPPET_JS;
  }

  @Get('capture/v1/field.js')
  @Public()
  @Header('content-type', 'application/javascript; charset=utf-8')
  @Header('cache-control', 'public, max-age=300')
  @ApiDoc({
    tag: 'Capture',
    summary: "The consent field script (plain JavaScript) defining <svc-consent-field> for an organisation's own form",
    response: 'application/javascript',
  })
  fieldScript(): string {
    return CONSENT_FIELD_JS;
  }

  /** Browser: publishable key and an allowed Origin. The field's wording for the flow's active version. */
  @Get('capture/v1/fields/:flow_id')
  @Auth('publishable_key')
  @Header('cache-control', 'no-store')
  @ApiDoc({
    tag: 'Capture',
    summary:
      'The service-rendered consent field of a flow: its purposes as unticked, optional checkboxes, and the rendering digest a capture carries back',
    response: 'consent_field: object, flow_id, flow_version, locale, html, rendering_digest (SHA-256 hex of html)',
    errors: [401, 403, 404, 409, 421, 422],
  })
  @ApiResponseOf(ConsentFieldResponse)
  async field(
    @CurrentPrincipal() principal: Principal,
    @Req() request: FastifyRequest,
    @Param('flow_id') flowId: string,
  ): Promise<ConsentFieldResponse> {
    const origin = typeof request.headers.origin === 'string' ? request.headers.origin : undefined;
    const rendering = await this.renderConsentField.execute(principal, origin, flowId);
    return {
      object: 'consent_field',
      flow_id: rendering.flowId,
      flow_version: rendering.flowVersion,
      locale: rendering.locale,
      html: rendering.html,
      rendering_digest: rendering.digest,
    };
  }

  /** Browser: publishable key and an allowed Origin. 201 with the capture token (valid 24 h). */
  @Post('capture/v1/captures')
  @Auth('publishable_key')
  @ApiDoc({
    tag: 'Capture',
    summary: "Store the purposes' states of a form submission under a capture token",
    response: 'capture: capture_token, object, flow_id, flow_version, channel, expires_at',
    errors: [400, 401, 403, 404, 409, 421, 422],
  })
  @ApiResponseOf(CaptureResponse)
  async create(
    @CurrentPrincipal() principal: Principal,
    @Req() request: FastifyRequest,
    @Body() body: CreateCaptureBody,
  ): Promise<CaptureResponse> {
    const origin = typeof request.headers.origin === 'string' ? request.headers.origin : undefined;
    const { token, capture } = await this.createCapture.execute(principal, origin, body);
    return {
      capture_token: token,
      object: 'capture',
      flow_id: capture.flowId,
      flow_version: capture.flowVersion,
      channel: capture.channel,
      expires_at: capture.expiresAt.toISOString(),
    };
  }

  /** Server: commits the capture for the supplied subject; returns `status`, `record_id`, `channel`. */
  @Post('api/v1/decisions/:capture_token/authorize')
  @HttpCode(200)
  @ApiDoc({
    tag: 'Capture',
    summary: 'Commit a capture (binds the person, writes the record)',
    response: 'status (committed), record_id, channel',
    errors: [400, 401, 403, 404, 409, 410, 421, 422],
  })
  @ApiResponseOf(CaptureAuthorizedResponse)
  async authorize(
    @CurrentPrincipal() principal: Principal,
    @Param('capture_token') token: string,
    @Body() body: AuthorizeCaptureBody,
  ): Promise<CaptureAuthorizedResponse> {
    const result = await this.authorizeCapture.execute(principal, token, body);
    return { status: result.status, record_id: result.recordId, channel: result.channel };
  }
}
