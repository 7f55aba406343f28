import { Injectable } from '@nestjs/common';
import { Clock, PlatformConfig, regionCountries } from '@svc/config';
import { canonicalJson, sha256Hex } from '@svc/crypto';
import type { EntityManager } from 'typeorm';
import { buildReceipt } from '../record/build-receipt';
import type { ReceiptInput } from '../record/inputs';
import type { ReceiptDocument } from '../record/receipt-document';
import { receiptsError } from '../receipts.errors';
import { validateReceiptDocument } from '../schema/published-schema';
import { ReceiptsRepository, type ReceiptSource } from '../storage/receipts.repository';

/** Outcome of {@link FreezeReceipt.execute}. */
export interface FrozenReceiptRef {
  recordId: string;
  /** SHA-256 hex of the frozen document's canonical bytes. */
  documentSha256: string;
  /** False when the identical receipt was already frozen (an idempotent retry). */
  created: boolean;
  /** The frozen document. */
  document: ReceiptDocument;
}

/**
 * Freezes a receipt: the in-process API consent-records (record committed, capture authorized,
 * import row written), oap-authorizer (authority granted) and the disclosure endpoint call.
 *
 * Contract: builds the `svc-cr/2.13` document from the plain input (pure builder), refuses one
 * that does not validate against the published schema (`receipt_input_invalid`, a caller bug),
 * and stores its canonical bytes. `storage_locations` is the region's country (where the record
 * is stored); `processing_locations` come later, from recorded transfers (a `transfer_recorded`
 * transition), and `jurisdiction` is what the caller's input states (the intake sets it from the
 * application's enabled regime modules), `unspecified` when absent.
 * Pass the caller's `manager` to freeze inside the transaction that writes the record, so a record never exists without its receipt. Retrying with the same
 * input is harmless (`created: false`); a different document under an existing record id — or one
 * of another application — is `receipt_already_frozen` (409): a frozen record is never rewritten.
 * Later changes (withdrawal, suspension…) go through {@link AppendReceiptTransition}.
 */
@Injectable()
export class FreezeReceipt {
  constructor(
    private readonly receipts: ReceiptsRepository,
    private readonly clock: Clock,
    private readonly config: PlatformConfig,
  ) {}

  async execute(input: ReceiptInput, source: ReceiptSource, manager?: EntityManager): Promise<FrozenReceiptRef> {
    const document = buildReceipt(withStorageLocation(input, regionCountries(this.config)[this.config.REGION]));
    const check = validateReceiptDocument(document);
    if (!check.valid) {
      throw receiptsError('receipt_input_invalid', 'The receipt input does not produce a conforming svc-cr/2.13 document', {
        problems: check.problems.slice(0, 10),
      });
    }
    const canonical = canonicalJson(document);
    const sha256 = sha256Hex(canonical);
    const work = async (tx: EntityManager): Promise<FrozenReceiptRef> => {
      const created = await this.receipts.insertFrozen(tx, {
        recordId: input.record_id,
        applicationId: input.application_id,
        recordType: document.record.record_type,
        canonical,
        sha256,
        source,
        frozenAt: this.clock.now(),
      });
      if (created) return { recordId: input.record_id, documentSha256: sha256, created: true, document };
      const existing = await this.receipts.find(input.application_id, input.record_id, tx);
      if (existing?.documentSha256 !== sha256) {
        throw receiptsError('receipt_already_frozen', 'A different receipt is already frozen under this record id', {
          record_id: input.record_id,
        });
      }
      return { recordId: input.record_id, documentSha256: sha256, created: false, document };
    };
    return manager ? work(manager) : this.receipts.transaction(work);
  }
}

/**
 * The record is stored in this region's database only: its country (the residency table,
 * `REGION_COUNTRIES`) is the receipt's `storage_locations`, whatever the input says — the
 * platform knows where it stores, a caller does not.
 */
function withStorageLocation(input: ReceiptInput, country: string): ReceiptInput {
  return { ...input, processing: { ...input.processing, storage_locations: [country] } } as ReceiptInput;
}
