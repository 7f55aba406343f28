import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { CurrentPrincipal, type Principal } from '@svc/auth';
import { ApiDoc, ApiResponseOf, DEFAULT_PAGE_SIZE, PageQuery, decodeCursor, toPage, type Page } from '@svc/server';
import { DataDeals } from './data-deals.service';
import type { DataTransfer } from './data-transfers.repository';
import { DataTransfersRepository } from './data-transfers.repository';
import { CreateDataTransferBody } from './deals.dto';
import { DataTransferResponse } from './deals.responses';
import { SendDataTransfer } from './send-data-transfer.use-case';

export function transferView(t: DataTransfer, recipientName: string): DataTransferResponse {
  return {
    id: t.id,
    object: 'data_transfer',
    application_id: t.applicationId,
    license_id: t.licenseId,
    offer_id: t.offerId,
    record_id: t.recordId,
    recipient: { party_id: t.recipientPartyId, name: recipientName, country: t.recipientCountry },
    purpose: t.purpose,
    data_category: t.dataCategory,
    encryption: { alg: t.keyAlgorithm, enc: 'A256GCM', kid: t.keyId },
    jwe: t.jwe,
    data_sha256: t.dataSha256,
    transfer_register_id: t.transferRegisterId,
    receipt: t.receipt,
    created_at: t.createdAt.toISOString(),
  };
}

const TRANSFER_RESPONSE =
  'data_transfer: id, object, application_id, license_id, offer_id, record_id, recipient {party_id, name, country}, purpose, data_category, encryption {alg, enc, kid}, jwe, data_sha256, transfer_register_id | null, receipt, created_at';

/**
 * Protect: secure transfers under a data licence. API token only. A transfer sends one person's
 * data (the accepted offer's) to one recipient of the licence, encrypted to the recipient's
 * public key; see {@link SendDataTransfer} for the order of the checks.
 */
@Controller('api/v1/data_licenses/:license_id/transfers')
export class DataTransfersController {
  constructor(
    private readonly deals: DataDeals,
    private readonly send: SendDataTransfer,
    private readonly transfers: DataTransfersRepository,
  ) {}

  @Post()
  @HttpCode(201)
  @ApiDoc({
    tag: 'Data deals',
    summary: "Send a person's data to a recipient of the licence, encrypted to its key (JWE), with a receipt for the person",
    description:
      "Refused (422) unless the offer is under the licence and its accepted deal covers the purpose, data category and recipient now (`transfer_not_covered` with `detail.reason`), and the licence gives the recipient a `public_jwk` (`recipient_key_missing`). A recipient whose `country` is not the region's needs `lawful_basis` (`lawful_basis_required`): the crossing is written to `/api/v1/transfer_register` before the data is encrypted, and the deal's consent receipt lists the country in `processing_locations`.",
    response: TRANSFER_RESPONSE,
    errors: [400, 401, 403, 404, 421, 422],
  })
  @ApiResponseOf(DataTransferResponse)
  async create(
    @CurrentPrincipal() principal: Principal,
    @Param('license_id') licenseId: string,
    @Body() body: CreateDataTransferBody,
  ): Promise<DataTransferResponse> {
    const transfer = await this.send.execute(principal, licenseId, body);
    return transferView(transfer, await this.recipientName(principal, licenseId, transfer.recipientPartyId));
  }

  @Get()
  @ApiDoc({
    tag: 'Data deals',
    summary: 'List the secure transfers of a data licence, oldest first',
    response: 'Page of data_transfer: data, has_more, next_cursor',
    errors: [400, 401, 403, 404, 421],
  })
  @ApiResponseOf(DataTransferResponse, { page: true })
  async list(
    @CurrentPrincipal() principal: Principal,
    @Param('license_id') licenseId: string,
    @Query() query: PageQuery,
  ): Promise<Page<DataTransferResponse>> {
    const license = await this.deals.license(principal, licenseId);
    const names = new Map(license.terms.recipients.map((r) => [r.party_id, r.name]));
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    const after = query.cursor ? decodeCursor(query.cursor, ['created_at', 'id']) : undefined;
    const rows = await this.transfers.list(
      principal.applicationId,
      license.id,
      limit + 1,
      after ? { createdAt: after.created_at, id: after.id } : undefined,
    );
    return toPage(
      rows,
      limit,
      (t) => transferView(t, names.get(t.recipientPartyId) ?? t.recipientPartyId),
      (t) => ({ created_at: t.createdAt.toISOString(), id: t.id }),
    );
  }

  @Get(':transfer_id')
  @ApiDoc({ tag: 'Data deals', summary: 'Read a secure transfer', response: TRANSFER_RESPONSE, errors: [400, 401, 403, 404, 421] })
  @ApiResponseOf(DataTransferResponse)
  async get(
    @CurrentPrincipal() principal: Principal,
    @Param('license_id') licenseId: string,
    @Param('transfer_id') transferId: string,
  ): Promise<DataTransferResponse> {
    const transfer = await this.send.get(principal, licenseId, transferId);
    return transferView(transfer, await this.recipientName(principal, licenseId, transfer.recipientPartyId));
  }

  private async recipientName(principal: Principal, licenseId: string, partyId: string): Promise<string> {
    const license = await this.deals.license(principal, licenseId);
    return license.terms.recipients.find((r) => r.party_id === partyId)?.name ?? partyId;
  }
}
