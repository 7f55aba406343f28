import { Controller, Get, Param, Query, Res } from '@nestjs/common';
import { CurrentPrincipal, RequireScopes, type Principal } from '@svc/auth';
import { ApiDoc, ApiResponseOf } from '@svc/server';
import type { FastifyReply } from 'fastify';
import { parseFlavor } from '../flavors/flavor';
import { approvalRecordId } from '../intake/approval-decisions.consumer';
import { RenderReceipt, type RenderedReceipt } from '../use-cases/render-receipt.use-case';
import { ReceiptQuery } from './receipts.dto';
import { ReceiptDocumentResponse } from './receipts.response';

/** Response header carrying the status derived from the event projection. */
export const RECEIPT_STATUS_HEADER = 'x-svc-receipt-status';

/** Record ids are short opaque tokens; anything else cannot name a receipt. */
const RECORD_ID = /^[A-Za-z0-9_-]{1,128}$/;

/** An approval decision's record id (`apr_` + SHA-256 hex), or the session token it was minted under. */
const APPROVAL_RECORD_ID = /^apr_[0-9a-f]{64}$/;
const SESSION_TOKEN = /^dts_[A-Za-z0-9_-]{43}$/;

function approvalRecord(id: string): string {
  if (APPROVAL_RECORD_ID.test(id)) return id;
  return SESSION_TOKEN.test(id) ? approvalRecordId(id) : '-';
}

function send(reply: FastifyReply, rendered: RenderedReceipt): Buffer {
  void reply
    .header('content-type', `${rendered.contentType}; charset=utf-8`)
    .header('cache-control', 'private, no-store')
    .header(RECEIPT_STATUS_HEADER, rendered.status);
  return rendered.body;
}

/**
 * Receipts of the caller's application, in a flavor (`?flavor=canonical|dpv|signed`). Bodies are
 * the exact flavor bytes (canonical JSON). Another application's receipt answers 404 exactly like
 * an unknown one.
 */
@Controller('api/v1')
export class ReceiptsController {
  constructor(private readonly render: RenderReceipt) {}

  @Get('consent_receipts/:record_id')
  @ApiDoc({
    tag: 'Receipts',
    summary: 'A consent or notice receipt (svc-cr/2.13) in the requested flavor',
    errors: [400, 401, 403, 404, 422],
  })
  @ApiResponseOf(ReceiptDocumentResponse)
  async consentReceipt(
    @CurrentPrincipal() principal: Principal,
    @Param('record_id') recordId: string,
    @Query() query: ReceiptQuery,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<Buffer> {
    const flavor = parseFlavor(query.flavor);
    const rendered = await this.render.execute(
      principal.applicationId,
      RECORD_ID.test(recordId) ? recordId : '-',
      ['consent_record', 'notice_record'],
      flavor,
    );
    return send(reply, rendered);
  }

  @Get('authorization_receipts/:id')
  @RequireScopes('audit:verify')
  @ApiDoc({ tag: 'Receipts', summary: 'The durable authorization record of an authority (svc-cr/2.13)', errors: [400, 401, 403, 404, 422] })
  @ApiResponseOf(ReceiptDocumentResponse)
  async authorizationReceipt(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Query() query: ReceiptQuery,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<Buffer> {
    const flavor = parseFlavor(query.flavor);
    const rendered = await this.render.execute(principal.applicationId, RECORD_ID.test(id) ? id : '-', ['authorization_record'], flavor);
    return send(reply, rendered);
  }

  @Get('approval_receipts/:id')
  @RequireScopes('audit:verify')
  @ApiDoc({
    tag: 'Receipts',
    summary: 'The durable authorization record of a completed approval decision (svc-cr/2.13), by its session token or record id',
    errors: [400, 401, 403, 404, 422],
  })
  @ApiResponseOf(ReceiptDocumentResponse)
  async approvalReceipt(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Query() query: ReceiptQuery,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<Buffer> {
    const flavor = parseFlavor(query.flavor);
    const rendered = await this.render.execute(principal.applicationId, approvalRecord(id), ['authorization_record'], flavor);
    return send(reply, rendered);
  }
}
