import { Controller, HttpCode, Param, Post, Req, Res } from '@nestjs/common';
import { RouteConfig } from '@nestjs/platform-fastify';
import { Public } from '@svc/auth';
import { ApiDoc, ApiResponseOf, RAW_BODY_ROUTE, rawBodyOf } from '@svc/server';
import { FormWebhookRecordedResponse } from './form-integration.response';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ReceiveFormResponse } from './use-cases/receive-form-response.use-case';

/**
 * The webhook a hosted form platform posts each submitted response to. Public: authenticated only
 * by the platform's signature over the exact body bytes (Typeform-Signature), hence the raw body.
 */
@Controller('capture/v1/form_integrations')
export class FormWebhookController {
  constructor(private readonly receive: ReceiveFormResponse) {}

  /** 200 with the record id, for a new response and for a redelivery (Idempotent-Replayed: true). */
  @Post(':integration_id/webhook')
  @Public()
  @RouteConfig(RAW_BODY_ROUTE)
  @HttpCode(200)
  @ApiDoc({
    tag: 'Capture',
    summary: 'Signed webhook of a hosted form platform (Typeform form_response); writes a form_platform_webhook record',
    description:
      "Body: the platform's JSON as sent (Typeform: event_type, form_response {form_id, token, submitted_at, definition.fields[], answers[], hidden}). Header Typeform-Signature: sha256=<base64 HMAC-SHA256 of the raw body with the integration's signing secret>. Idempotent on form_response.token.",
    response: 'status (recorded), record_id, collection_channel (form_platform_webhook), collection_platform',
    errors: [400, 401, 404, 422],
    replays: true,
  })
  @ApiResponseOf(FormWebhookRecordedResponse)
  async webhook(
    @Param('integration_id') integrationId: string,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<FormWebhookRecordedResponse> {
    const signature = request.headers['typeform-signature'];
    const outcome = await this.receive.execute({
      integrationId,
      signature: typeof signature === 'string' ? signature : undefined,
      rawBody: rawBodyOf(request),
      body: request.body,
    });
    if (outcome.replayed) void reply.header('idempotent-replayed', 'true');
    return {
      status: 'recorded',
      record_id: outcome.recordId,
      collection_channel: 'form_platform_webhook',
      collection_platform: outcome.platform,
    };
  }
}
