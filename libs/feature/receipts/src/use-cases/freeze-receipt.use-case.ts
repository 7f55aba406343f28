import { Injectable } from '@nestjs/common';
import type { DomainError } from '@svc/errors';
import { Clock, PlatformConfig, regionCountries } from '@svc/config';
import { canonicalJson, sha256Hex } from '@svc/crypto';
import type { EntityManager } from 'typeorm';
import { buildReceipt } from '../record/build-receipt';
import type { ReceiptInput } from '../record/inputs';
import type { ReceiptDocument } from '../record/receipt-document';
import { receiptsError } from '../receipts.errors';
import { validateReceiptDocument } from '../schema/published-schema';
import { ReceiptsRepository, type ReceiptSource } from '../storage/receipts.repository';

/** A receipt built from its input and checked against the published schema, ready to store. */
export interface PreparedReceipt {
  input: ReceiptInput;
  document: ReceiptDocument;
  /** The document's canonical JSON: what is stored and hashed. */
  canonical: string;
  sha256: string;
}

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
    const prepared = this.prepare(input);
    const work = async (tx: EntityManager): Promise<FrozenReceiptRef> => {
      const [outcome] = await this.store(tx, [prepared], source);
      if (outcome instanceof Error) throw outcome;
      return outcome!;
    };
    return manager ? work(manager) : this.receipts.transaction(work);
  }

  /** Builds and checks a receipt (`receipt_input_invalid` when it does not conform), ready to {@link store}. */
  prepare(input: ReceiptInput): PreparedReceipt {
    const document = buildReceipt(withStorageLocation(input, regionCountries(this.config)[this.config.REGION]));
    const check = validateReceiptDocument(document);
    if (!check.valid) {
      throw receiptsError('receipt_input_invalid', 'The receipt input does not produce a conforming svc-cr/2.13 document', {
        problems: check.problems.slice(0, 10),
      });
    }
    const canonical = canonicalJson(document);
    return { input, document, canonical, sha256: sha256Hex(canonical) };
  }

  /**
   * Freezes prepared receipts in the caller's transaction with one insert. Per receipt, in order:
   * its reference, or the `receipt_already_frozen` error when a different document holds its
   * record id (nothing is thrown for it, so the others still commit).
   */
  async store(
    manager: EntityManager,
    prepared: readonly PreparedReceipt[],
    source: ReceiptSource,
  ): Promise<Array<FrozenReceiptRef | DomainError>> {
    const frozenAt = this.clock.now();
    const created = await this.receipts.insertFrozen(
      manager,
      prepared.map(({ input, document, canonical, sha256 }) => ({
        recordId: input.record_id,
        applicationId: input.application_id,
        recordType: document.record.record_type,
        canonical,
        sha256,
        source,
        frozenAt,
      })),
    );
    const outcomes: Array<FrozenReceiptRef | DomainError> = [];
    for (const { input, document, sha256 } of prepared) {
      const ref = { recordId: input.record_id, documentSha256: sha256, document };
      if (created.has(input.record_id)) {
        outcomes.push({ ...ref, created: true });
        continue;
      }
      // An idempotent retry finds its own document; any other is never rewritten.
      const existing = await this.receipts.find(input.application_id, input.record_id, manager);
      outcomes.push(
        existing?.documentSha256 === sha256
          ? { ...ref, created: false }
          : receiptsError('receipt_already_frozen', 'A different receipt is already frozen under this record id', {
              record_id: input.record_id,
            }),
      );
    }
    return outcomes;
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
