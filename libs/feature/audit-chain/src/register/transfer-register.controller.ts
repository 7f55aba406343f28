import { Body, Controller, Get, HttpCode, Post, Query } from '@nestjs/common';
import { CurrentPrincipal, RequireScopes, type Principal } from '@svc/auth';
import { ApiDoc, ApiResponseOf, DEFAULT_PAGE_SIZE, decodeCursor, toPage, type Page } from '@svc/server';
import { EvidencePeriodBody, RecordTransferBody, TransferRegisterQuery } from './register.dto';
import { EvidencePackageResponse, ResidencyPostureResponse, TransferResponse } from './register.responses';
import { residencyError } from './residency.errors';
import { TransferRegister, transferView } from './transfer-register.service';

/**
 * The Comply surface of residency (spec, Cross-border). Every route needs an API token with scope
 * `audit:verify` (a decision of ours: a compliance reader's scope); the register lists only the
 * token's application's crossings.
 */
@Controller('api/v1')
export class TransferRegisterController {
  constructor(private readonly register: TransferRegister) {}

  @Get('transfer_register')
  @RequireScopes('audit:verify')
  @ApiDoc({
    summary: 'Cross-border transfers of the application, each with lawful basis and adequacy verdict',
    tag: 'Cross-border',
    errors: [400, 401, 403],
  })
  @ApiResponseOf(TransferResponse, { page: true })
  async list(@CurrentPrincipal() principal: Principal, @Query() query: TransferRegisterQuery): Promise<Page<Record<string, unknown>>> {
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    const after = query.cursor ? Number(decodeCursor(query.cursor, ['seq']).seq) : 0;
    if (!Number.isSafeInteger(after) || after < 0)
      throw residencyError('invalid_request', 'cursor is not a cursor returned by this list', { field: 'cursor' });
    const rows = await this.register.transfers.list(
      principal.applicationId,
      {
        toCountry: query.to_country,
        dataCategory: query.data_category,
        lawfulBasis: query.lawful_basis,
        transferCase: query.transfer_case,
        from: query.from ? new Date(query.from) : undefined,
        to: query.to ? new Date(query.to) : undefined,
      },
      limit + 1,
      after,
    );
    return toPage(rows, limit, transferView, (row) => ({ seq: row.seq }));
  }

  @Post('transfer_register')
  @HttpCode(201)
  @RequireScopes('audit:verify')
  @ApiDoc({
    summary: 'Record a crossing before it happens (refused without a lawful basis)',
    tag: 'Cross-border',
    errors: [400, 401, 403, 422],
  })
  @ApiResponseOf(TransferResponse)
  async recordTransfer(@CurrentPrincipal() principal: Principal, @Body() body: RecordTransferBody): Promise<Record<string, unknown>> {
    const row = await this.register.recordTransfer({
      applicationId: principal.applicationId,
      dataCategories: body.data_categories,
      toCountry: body.to_country,
      recipient: body.recipient,
      purpose: body.purpose,
      lawfulBasis: body.lawful_basis,
      derogationArticle: body.derogation_article,
      transferCase: body.transfer_case,
      reference: body.reference,
      recordIds: body.record_ids,
    });
    return transferView(row);
  }

  @Post('transfer_register/evidence_package')
  @HttpCode(201)
  @RequireScopes('audit:verify')
  @ApiDoc({
    summary: 'Signed, independently verifiable evidence package of the transfer register for a period',
    tag: 'Cross-border',
    errors: [400, 401, 403, 422],
  })
  @ApiResponseOf(EvidencePackageResponse)
  async transferEvidence(@CurrentPrincipal() principal: Principal, @Body() body: EvidencePeriodBody): Promise<Record<string, unknown>> {
    const made = await this.register.evidencePackage('transfer_register', principal.applicationId, body.from, body.to);
    return { object: 'evidence_package', kind: 'transfer_register', kid: made.kid, package: made.jws, content: made.content };
  }

  @Get('residency_posture')
  @RequireScopes('audit:verify')
  @ApiDoc({
    summary: 'Per country and data category: where it is stored and processed, with an assurance status',
    tag: 'Cross-border',
    errors: [401, 403],
  })
  @ApiResponseOf(ResidencyPostureResponse)
  async posture(): Promise<Record<string, unknown>> {
    return (await this.register.posture()) as unknown as Record<string, unknown>;
  }

  @Post('residency_posture/evidence_package')
  @HttpCode(201)
  @RequireScopes('audit:verify')
  @ApiDoc({ summary: 'Signed proof of residency for a period', tag: 'Cross-border', errors: [400, 401, 403, 422] })
  @ApiResponseOf(EvidencePackageResponse)
  async postureEvidence(@CurrentPrincipal() principal: Principal, @Body() body: EvidencePeriodBody): Promise<Record<string, unknown>> {
    const made = await this.register.evidencePackage('residency_posture', principal.applicationId, body.from, body.to);
    return { object: 'evidence_package', kind: 'residency_posture', kid: made.kid, package: made.jws, content: made.content };
  }
}
