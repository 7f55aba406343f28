import { Controller } from '@nestjs/common';
import { RpcHandler, type RpcReplyInit, type RpcRequest } from '@svc/bus';
import { TransferRegister } from './transfer-register.service';

/** `residency.record_transfer`: other services record a crossing before they make it. */
@Controller()
export class ResidencyRpcHandlers {
  constructor(private readonly register: TransferRegister) {}

  @RpcHandler('residency.record_transfer')
  async recordTransfer(request: RpcRequest<'residency.record_transfer'>): Promise<RpcReplyInit<'residency.record_transfer'>> {
    const row = await this.register.recordTransfer({
      applicationId: request.applicationId,
      dataCategories: request.dataCategories,
      toCountry: request.toCountry,
      fromCountry: request.fromCountry || undefined,
      recipient: request.recipient,
      purpose: request.purpose,
      lawfulBasis: request.lawfulBasis || undefined,
      derogationArticle: request.derogationArticle || undefined,
      transferCase: request.transferCase,
      reference: request.reference,
      recordIds: request.recordIds,
    });
    return {
      transferId: row.id,
      auditEntryId: row.auditEntryId,
      adequacyVerdict: row.adequacyVerdict,
      adequacyTableVersion: row.adequacyTableVersion,
    };
  }
}
