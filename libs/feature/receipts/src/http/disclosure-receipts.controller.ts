import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { CurrentPrincipal, RequireScopes, type Principal } from '@svc/auth';
import { ApiDoc, ApiResponseOf } from '@svc/server';
import { RecordDisclosure } from '../use-cases/record-disclosure.use-case';
import { DisclosureReceiptBody } from './receipts.dto';
import { DisclosureReceiptEnvelopeResponse } from './receipts.response';

/** `POST /api/v1/disclosure_receipts` (scope `disclosures:write`). */
@Controller('api/v1/disclosure_receipts')
export class DisclosureReceiptsController {
  constructor(private readonly recordDisclosure: RecordDisclosure) {}

  /** 201 with the frozen notice receipt; read it again at `GET /api/v1/consent_receipts/:record_id`. */
  @Post()
  @HttpCode(201)
  @RequireScopes('disclosures:write')
  @ApiDoc({
    tag: 'Receipts',
    summary: 'Record an operator-declared agent disclosure as a notice receipt',
    errors: [400, 401, 403, 404, 422],
  })
  @ApiResponseOf(DisclosureReceiptEnvelopeResponse)
  async create(@CurrentPrincipal() principal: Principal, @Body() body: DisclosureReceiptBody): Promise<DisclosureReceiptEnvelopeResponse> {
    const recorded = await this.recordDisclosure.execute(principal, {
      flowId: body.flow_id,
      agentId: body.agent_id,
      disclosedAt: body.disclosed_at,
      locale: body.locale,
    });
    return {
      disclosure_receipt: {
        record_id: recorded.recordId,
        object: 'disclosure_receipt',
        record_type: 'notice_record',
        status: recorded.status,
        provenance: 'operator_declared',
        receipt_url: `/api/v1/consent_receipts/${recorded.recordId}`,
        receipt: recorded.document,
      },
    };
  }
}
