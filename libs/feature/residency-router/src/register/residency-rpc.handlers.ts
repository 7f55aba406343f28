import { Injectable, type OnModuleInit } from '@nestjs/common';
import { RpcServer } from '@svc/bus';
import { TransferRegister } from './transfer-register.service';

/** `residency.record_transfer`: other services record a crossing before they make it. */
@Injectable()
export class ResidencyRpcHandlers implements OnModuleInit {
  constructor(
    private readonly rpc: RpcServer,
    private readonly register: TransferRegister,
  ) {}

  onModuleInit(): void {
    this.rpc.handle('residency.record_transfer', async (request) => {
      const row = await this.register.recordTransfer({
        applicationId: request.applicationId,
        dataCategories: request.dataCategories,
        toCountry: request.toCountry,
        recipient: request.recipient,
        purpose: request.purpose,
        lawfulBasis: request.lawfulBasis || undefined,
        derogationArticle: request.derogationArticle || undefined,
        transferCase: request.transferCase,
        reference: request.reference,
        recordIds: request.recordIds,
      });
      return { transferId: row.id, auditEntryId: row.auditEntryId, adequacyVerdict: row.adequacyVerdict, adequacyTableVersion: row.adequacyTableVersion };
    });
  }
}
