import { Injectable } from '@nestjs/common';
import { Clock, PlatformConfig } from '@svc/config';
import { canonicalJson } from '@svc/crypto';
import { SigningKeyStore } from '@svc/key-store';
import { projectReceipt, type ReceiptStatus } from '../events/project-events';
import { canonicalReceiptBytes } from '../flavors/canonical';
import { dpvReceipt } from '../flavors/dpv';
import type { ReceiptFlavor, RenderedFlavor } from '../flavors/flavor';
import { signReceipt } from '../flavors/signed';
import type { ReceiptDocument, RecordType } from '../record/receipt-document';
import { receiptsError } from '../receipts.errors';
import { ReceiptsRepository } from '../storage/receipts.repository';

/** A receipt rendered in one flavor, with the status derived from its events. */
export interface RenderedReceipt extends RenderedFlavor {
  recordId: string;
  recordType: RecordType;
  status: ReceiptStatus;
  /** The projected document (what the canonical flavor serialises). */
  document: ReceiptDocument;
}

/** Media types of the flavors. */
export const FLAVOR_MEDIA_TYPES: Record<ReceiptFlavor, string> = {
  canonical: 'application/json',
  dpv: 'application/ld+json',
  signed: 'application/json',
};

/**
 * Renders an application's receipt: frozen document + transitions projected at the clock's now,
 * then the requested flavor. `recordTypes` restricts which kinds the calling route serves; a
 * receipt of another kind, of another application, or unknown is the same `receipt_not_found`.
 */
@Injectable()
export class RenderReceipt {
  constructor(
    private readonly receipts: ReceiptsRepository,
    private readonly clock: Clock,
    private readonly keys: SigningKeyStore,
    private readonly config: PlatformConfig,
  ) {}

  async execute(
    applicationId: string,
    recordId: string,
    recordTypes: readonly RecordType[],
    flavor: ReceiptFlavor,
  ): Promise<RenderedReceipt> {
    const frozen = await this.receipts.find(applicationId, recordId);
    if (!frozen || !recordTypes.includes(frozen.recordType))
      throw receiptsError('receipt_not_found', 'Receipt not found', { record_id: recordId });
    const projection = projectReceipt(frozen.document, await this.receipts.transitions(recordId), this.clock.now());
    const base = { recordId, recordType: frozen.recordType, status: projection.status, document: projection.document, flavor };
    switch (flavor) {
      case 'canonical':
        return { ...base, contentType: FLAVOR_MEDIA_TYPES.canonical, body: canonicalReceiptBytes(projection.document) };
      case 'dpv':
        return {
          ...base,
          contentType: FLAVOR_MEDIA_TYPES.dpv,
          body: Buffer.from(canonicalJson(dpvReceipt(projection.document, projection.status)), 'utf8'),
        };
      case 'signed': {
        const jwksUri = `${this.config.publicBaseUrl}/.well-known/jwks.json`;
        const signed = await signReceipt(projection.document, await this.keys.activeKey(), jwksUri);
        return { ...base, contentType: FLAVOR_MEDIA_TYPES.signed, body: Buffer.from(canonicalJson(signed), 'utf8') };
      }
    }
  }
}
