import { canonicalJson } from '@svc/crypto';
import { randomBase32 } from '@svc/ids';
import type { RpcClient } from '@svc/bus';
import { ADEQUACY_TABLE, adequacyOf } from './adequacy';
import { residencyError } from './residency.errors';
import type { TransferRegisterRepository, TransferRow } from './transfer-register.repository';
import { DATA_CATEGORIES, DEROGATION_ARTICLES, LAWFUL_BASES, TRANSFER_CASES } from '@svc/contracts';

/** A crossing about to happen, as a service (or an application) declares it. */
export interface TransferInput {
  readonly applicationId: string;
  readonly dataCategories: readonly string[];
  readonly toCountry: string;
  /**
   * The country the data leaves; this region's when absent. An inbound crossing (recorded where
   * the data arrives, e.g. a presented credential issued in another region) names the other
   * country here and this region's as `toCountry`.
   */
  readonly fromCountry?: string;
  readonly recipient: string;
  readonly purpose: string;
  readonly lawfulBasis?: string;
  readonly derogationArticle?: string;
  readonly transferCase: string;
  readonly reference: string;
  /** Receipts whose data crosses; each is told (a `transfer_recorded` transition). */
  readonly recordIds?: readonly string[];
}

/** Most receipts one crossing names. */
export const MAX_TRANSFER_RECORDS = 100;
const RECORD_ID = /^[a-z]{2,8}_[a-z]{2,3}_[a-z2-7]{20,24}$/;

const has = (list: readonly string[], value: string | undefined): boolean => value !== undefined && list.includes(value);

/**
 * Records a crossing of personal data before it happens: checks its lawful basis against the
 * adequacy table, appends it to the audit chain (`audit.append_entry`, idempotent by the
 * crossing's reference) and writes it to the register with the audit entry id, then tells each
 * named receipt (`receipts.append_transition`, `transfer_recorded`). The caller moves the data only
 * once this resolves; a refusal of the basis leaves nothing recorded. An unknown receipt id fails
 * after the crossing is recorded (it was declared, so it stays); retrying with the same reference
 * records nothing twice.
 * @throws DomainError `lawful_basis_required` / `lawful_basis_invalid` (422, `detail.field`),
 *   `invalid_request` (400, `detail.field`).
 */
export class RecordTransfer {
  constructor(
    private readonly transfers: TransferRegisterRepository,
    private readonly rpc: RpcClient,
    private readonly fromCountry: string,
    private readonly clock: { now(): Date },
  ) {}

  async execute(input: TransferInput): Promise<TransferRow> {
    this.check(input);
    const fromCountry = input.fromCountry ?? this.fromCountry;
    const adequacy = adequacyOf(input.toCountry);
    if (input.lawfulBasis === 'adequacy_decision' && (adequacy.verdict === 'not_adequate' || adequacy.verdict === 'eea')) {
      throw residencyError('lawful_basis_invalid', `No adequacy decision covers ${input.toCountry}; name SCCs, BCRs or a derogation`, {
        field: 'lawful_basis',
        adequacy_verdict: adequacy.verdict,
      });
    }
    const id = `xfr_${randomBase32(24)}`;
    const recordedAt = this.clock.now();
    const fact = {
      transfer_id: id,
      transfer_case: input.transferCase,
      data_categories: [...input.dataCategories],
      from_country: fromCountry,
      to_country: input.toCountry,
      recipient: input.recipient,
      purpose: input.purpose,
      lawful_basis: input.lawfulBasis ?? null,
      derogation_article: input.derogationArticle ?? null,
      adequacy_verdict: adequacy.verdict,
      adequacy_table_version: ADEQUACY_TABLE.version,
      record_ids: [...(input.recordIds ?? [])],
      recorded_at: recordedAt.toISOString(),
    };
    const entry = await this.rpc.call('audit.append_entry', {
      type: 'residency.transfer_recorded',
      applicationId: input.applicationId,
      sourceEventId: `transfer:${input.applicationId}:${input.reference}`,
      dataJson: canonicalJson(fact),
    });
    const row = await this.transfers.insert({
      id,
      applicationId: input.applicationId,
      reference: input.reference,
      transferCase: input.transferCase,
      dataCategories: [...input.dataCategories],
      fromCountry,
      toCountry: input.toCountry,
      recipient: input.recipient,
      purpose: input.purpose,
      lawfulBasis: input.lawfulBasis ?? '',
      derogationArticle: input.derogationArticle ?? null,
      adequacyVerdict: adequacy.verdict,
      adequacyDecision: adequacy.decision,
      adequacyTableVersion: ADEQUACY_TABLE.version,
      recordIds: [...(input.recordIds ?? [])],
      auditEntryId: entry.id,
      recordedAt,
    });
    // Each receipt whose data crosses states the destination and basis (receipts owns the document).
    for (const recordId of row.recordIds) {
      const transition = {
        type: 'transfer_recorded',
        at: row.recordedAt.toISOString(),
        country: row.toCountry,
        transfer_basis: row.lawfulBasis,
        transfer_register_id: row.id,
      };
      await this.rpc.call('receipts.append_transition', {
        applicationId: row.applicationId,
        recordId,
        transitionJson: JSON.stringify(transition),
        idempotencyKey: `transfer:${row.id}:${recordId}`,
      });
    }
    return row;
  }

  private check(input: TransferInput): void {
    if (!/^tp_[a-z]+_[a-z2-7]{20}$/.test(input.applicationId))
      throw residencyError('invalid_request', 'application_id is not an application id', { field: 'application_id' });
    if (input.dataCategories.length === 0 || !input.dataCategories.every((category) => has(DATA_CATEGORIES, category))) {
      throw residencyError('invalid_request', `data_categories must list one or more of ${DATA_CATEGORIES.join(', ')}`, {
        field: 'data_categories',
      });
    }
    if (!/^[A-Z]{2}$/.test(input.toCountry))
      throw residencyError('invalid_request', 'to_country must be an ISO 3166-1 alpha-2 code', { field: 'to_country' });
    if (input.fromCountry !== undefined) {
      if (!/^[A-Z]{2}$/.test(input.fromCountry))
        throw residencyError('invalid_request', 'from_country must be an ISO 3166-1 alpha-2 code', { field: 'from_country' });
      // An inbound crossing arrives here from another country; a region records only crossings it takes part in.
      if (input.fromCountry === this.fromCountry || input.toCountry !== this.fromCountry) {
        throw residencyError(
          'invalid_request',
          "An inbound crossing names another country as from_country and the region's own as to_country",
          { field: 'from_country' },
        );
      }
    } else if (input.toCountry === this.fromCountry)
      throw residencyError('invalid_request', "to_country is the region's own country: nothing crosses", { field: 'to_country' });
    if (!input.recipient || input.recipient.length > 200)
      throw residencyError('invalid_request', 'recipient must be 1-200 characters', { field: 'recipient' });
    if (!input.purpose || input.purpose.length > 200)
      throw residencyError('invalid_request', 'purpose must be 1-200 characters', { field: 'purpose' });
    if (!has(TRANSFER_CASES, input.transferCase))
      throw residencyError('invalid_request', `transfer_case must be one of ${TRANSFER_CASES.join(', ')}`, { field: 'transfer_case' });
    if (!input.reference || input.reference.length > 200)
      throw residencyError('invalid_request', 'reference must be 1-200 characters', { field: 'reference' });
    const records = input.recordIds ?? [];
    if (records.length > MAX_TRANSFER_RECORDS || !records.every((id) => RECORD_ID.test(id)) || new Set(records).size !== records.length) {
      throw residencyError('invalid_request', `record_ids must be up to ${MAX_TRANSFER_RECORDS} distinct receipt record ids`, {
        field: 'record_ids',
      });
    }
    if (!input.lawfulBasis)
      throw residencyError('lawful_basis_required', 'A crossing without a lawful basis is refused', { field: 'lawful_basis' });
    if (!has(LAWFUL_BASES, input.lawfulBasis))
      throw residencyError('lawful_basis_invalid', `lawful_basis must be one of ${LAWFUL_BASES.join(', ')}`, { field: 'lawful_basis' });
    if (input.lawfulBasis === 'derogation' && !has(DEROGATION_ARTICLES, input.derogationArticle)) {
      throw residencyError('lawful_basis_required', `A derogation names its article: one of ${DEROGATION_ARTICLES.join(', ')}`, {
        field: 'derogation_article',
      });
    }
    if (input.lawfulBasis !== 'derogation' && input.derogationArticle) {
      throw residencyError('invalid_request', 'derogation_article is only for lawful_basis derogation', { field: 'derogation_article' });
    }
  }
}
