import { Body, Controller, Get, HttpCode, Param, Post } from '@nestjs/common';
import { RouteConfig } from '@nestjs/platform-fastify';
import { Public } from '@svc/auth';
import { ApiDoc, ApiResponseOf, FORM_BODY_ROUTE } from '@svc/server';
import { InboundReceiptResponse } from './mailing-audience.response';
import { MAILING_WEBHOOK_PATH } from './mailing-audience';
import { ReceiveMailingWebhook } from './use-cases/receive-mailing-webhook.use-case';

/**
 * The mailing tool's inbound webhook. Its posts are unsigned, so the path secret (shown once when
 * the integration is created) is the credential: an unknown one answers 404.
 */
@Controller(MAILING_WEBHOOK_PATH)
@Public()
export class MailingWebhookController {
  constructor(private readonly receive: ReceiveMailingWebhook) {}

  /** Mailchimp validates a webhook URL with a GET before saving it. */
  @Get(':secret')
  @ApiDoc({
    tag: 'Mailing audiences',
    summary: "The mailing tool's URL check of the inbound webhook",
    response: 'received: true, outcome: validated',
    errors: [404],
  })
  @ApiResponseOf(InboundReceiptResponse)
  async validate(@Param('secret') secret: string): Promise<InboundReceiptResponse> {
    await this.receive.audienceOf(secret);
    return { received: true, outcome: 'validated' };
  }

  @Post(':secret')
  @RouteConfig(FORM_BODY_ROUTE)
  @HttpCode(200)
  @ApiDoc({
    tag: 'Mailing audiences',
    summary:
      'Inbound mailing-tool event (form-encoded: type, fired_at, data[email], data[list_id]); unsubscribe is read back before any withdrawal, subscribe is never consent',
    response: 'received: true, outcome (queued|ignored|validated)',
    errors: [400, 404],
  })
  @ApiResponseOf(InboundReceiptResponse)
  async post(@Param('secret') secret: string, @Body() body: unknown): Promise<InboundReceiptResponse> {
    return this.receive.execute(secret, body);
  }
}
