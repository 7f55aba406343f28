import { Injectable } from '@nestjs/common';
import { canonicalJson, sha256Hex } from '@svc/crypto';
import type { EntityManager } from 'typeorm';
import { TRANSITIONS_BY_RECORD_TYPE, type ReceiptTransition } from '../events/transitions';
import { EVENT_CHANNELS } from '../record/receipt-document';
import { receiptsError } from '../receipts.errors';
import { ReceiptsRepository } from '../storage/receipts.repository';

/**
 * Appends a post-decision transition (withdrawal, objection, expiry, authority suspension /
 * resumption / revocation / expiry / exercise, approvals) to a frozen receipt; the in-process API
 * the owners of records and authorities call when their state changes. The frozen document is not
 * touched: the transition is rendered as an `event` row at read time.
 *
 * Refuses (`receipt_input_invalid`) a transition of the wrong kind for the record, a `purpose_id`
 * that is not one of the record's granted purposes, an unknown channel or an unparseable time.
 * `idempotencyKey` (default: SHA-256 of the canonical transition) makes redelivery harmless;
 * returns false when the transition was already appended.
 */
@Injectable()
export class AppendReceiptTransition {
  constructor(private readonly receipts: ReceiptsRepository) {}

  async execute(
    applicationId: string,
    recordId: string,
    transition: ReceiptTransition,
    idempotencyKey?: string,
    manager?: EntityManager,
  ): Promise<boolean> {
    const work = async (tx: EntityManager): Promise<boolean> => {
      const frozen = await this.receipts.find(applicationId, recordId, tx);
      if (!frozen) throw receiptsError('receipt_not_found', 'Receipt not found', { record_id: recordId });
      const allowed: readonly string[] = TRANSITIONS_BY_RECORD_TYPE[frozen.recordType];
      if (!allowed.includes(transition.type)) {
        throw receiptsError('receipt_input_invalid', `A ${frozen.recordType} cannot take a ${transition.type} transition`, {
          field: 'type',
        });
      }
      if (Number.isNaN(Date.parse(transition.at)) || !/^\d{4}-\d{2}-\d{2}T/.test(transition.at)) {
        throw receiptsError('receipt_input_invalid', 'at must be an ISO 8601 timestamp', { field: 'at' });
      }
      if ('purpose_id' in transition && transition.purpose_id !== undefined) {
        const granted = frozen.document.pii_processing.purposes.map((p) => p.purpose_id);
        if (!granted.includes(transition.purpose_id)) {
          throw receiptsError('receipt_input_invalid', 'purpose_id is not a granted purpose of this record', { field: 'purpose_id' });
        }
      }
      if (
        'channel' in transition &&
        transition.channel !== undefined &&
        !(EVENT_CHANNELS as readonly string[]).includes(transition.channel)
      ) {
        throw receiptsError('receipt_input_invalid', 'channel is not a known event channel', { field: 'channel' });
      }
      if ('approval_id' in transition && !transition.approval_id) {
        throw receiptsError('receipt_input_invalid', 'approval_id is required on approval transitions', { field: 'approval_id' });
      }
      if (transition.type === 'transfer_recorded') {
        if (!/^[A-Z]{2}$/.test(transition.country ?? ''))
          throw receiptsError('receipt_input_invalid', 'country must be an ISO 3166-1 alpha-2 code', { field: 'country' });
        if (!/^[a-z][a-z0-9_]{0,63}$/.test(transition.transfer_basis ?? ''))
          throw receiptsError('receipt_input_invalid', 'transfer_basis must be an identifier', { field: 'transfer_basis' });
        if (!/^xfr_[a-z2-7]{24}$/.test(transition.transfer_register_id ?? ''))
          throw receiptsError('receipt_input_invalid', 'transfer_register_id must be a transfer register id', {
            field: 'transfer_register_id',
          });
      }
      const normalised = { ...transition, at: new Date(transition.at).toISOString() } as ReceiptTransition;
      const canonical = canonicalJson(normalised);
      return this.receipts.appendTransition(tx, recordId, normalised, canonical, idempotencyKey ?? sha256Hex(canonical));
    };
    return manager ? work(manager) : this.receipts.transaction(work);
  }
}
