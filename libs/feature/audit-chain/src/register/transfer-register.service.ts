import { Injectable } from '@nestjs/common';
import { RpcClient } from '@svc/bus';
import { Clock, regionCountries } from '@svc/config';
import { SigningKeyStore } from '@svc/key-store';
import { DataSource } from 'typeorm';
import { ADEQUACY_TABLE } from './adequacy';
import { signEvidencePackage, type EvidencePackageContent } from './evidence-package';
import { RecordTransfer, type TransferInput } from './record-transfer.use-case';
import { ResidencyRegisterConfig } from './residency-register.config';
import { residencyError } from './residency.errors';
import { computePosture, type ResidencyPosture } from './residency-posture';
import { TransferRegisterRepository, type TransferRow } from './transfer-register.repository';

/** Most crossings one evidence package holds. */
export const MAX_PACKAGE_TRANSFERS = 1_000;
const MAX_PERIOD_MS = 366 * 86_400_000;

/** A crossing as served. */
export function transferView(row: TransferRow): Record<string, unknown> {
  return {
    object: 'transfer',
    id: row.id,
    transfer_case: row.transferCase,
    data_categories: [...row.dataCategories],
    from_country: row.fromCountry,
    to_country: row.toCountry,
    recipient: row.recipient,
    purpose: row.purpose,
    lawful_basis: row.lawfulBasis,
    derogation_article: row.derogationArticle,
    adequacy_verdict: row.adequacyVerdict,
    adequacy_decision: row.adequacyDecision,
    adequacy_table_version: row.adequacyTableVersion,
    reference: row.reference,
    record_ids: [...row.recordIds],
    recorded_at: row.recordedAt.toISOString(),
    audit_entry_id: row.auditEntryId,
  };
}

/** The region's transfer register, residency posture and evidence packages. */
@Injectable()
export class TransferRegister {
  readonly transfers: TransferRegisterRepository;
  readonly record: RecordTransfer;
  readonly country: string;

  constructor(
    dataSource: DataSource,
    private readonly rpc: RpcClient,
    private readonly keys: SigningKeyStore,
    private readonly config: ResidencyRegisterConfig,
    private readonly clock: Clock,
  ) {
    this.transfers = new TransferRegisterRepository(dataSource);
    this.country = regionCountries(config)[config.REGION];
    this.record = new RecordTransfer(this.transfers, rpc, this.country, clock);
  }

  recordTransfer(input: TransferInput): Promise<TransferRow> {
    return this.record.execute(input);
  }

  async posture(): Promise<ResidencyPosture> {
    return computePosture(this.config, await this.transfers.destinationsByCategory(), this.clock.now());
  }

  /**
   * A signed evidence package of the application's crossings in [from, to): the crossings, their
   * audit inclusion proofs against one signed (witness-cosigned when available) checkpoint, the
   * posture and the adequacy table version, signed with the region's active key.
   * @throws DomainError `period_invalid` (400, field), `evidence_too_large` (422).
   */
  async evidencePackage(
    kind: EvidencePackageContent['kind'],
    applicationId: string,
    fromText: string,
    toText: string,
  ): Promise<{ kid: string; jws: string; content: EvidencePackageContent }> {
    const from = new Date(fromText);
    const to = new Date(toText);
    if (Number.isNaN(from.getTime())) throw residencyError('period_invalid', 'from is not a date-time', { field: 'from' });
    if (Number.isNaN(to.getTime()) || to <= from) throw residencyError('period_invalid', 'to must be after from', { field: 'to' });
    if (to.getTime() - from.getTime() > MAX_PERIOD_MS)
      throw residencyError('period_invalid', 'A package covers at most 366 days', { field: 'to' });
    const rows = await this.transfers.list(applicationId, { from, to }, MAX_PACKAGE_TRANSFERS + 1);
    if (rows.length > MAX_PACKAGE_TRANSFERS)
      throw residencyError('evidence_too_large', `More than ${MAX_PACKAGE_TRANSFERS} crossings in the period; ask for a shorter one`, {
        field: 'to',
      });
    let audit: EvidencePackageContent['audit'] = null;
    if (rows.length > 0) {
      const reply = await this.rpc.call('audit.get_inclusion_proofs', { entryIds: rows.map((row) => row.auditEntryId) }, 15_000);
      audit = JSON.parse(reply.evidenceJson) as NonNullable<EvidencePackageContent['audit']>;
    }
    const key = await this.keys.activeKey();
    const content: EvidencePackageContent = {
      object: 'evidence_package',
      format: 1,
      kind,
      region: this.config.REGION,
      country: this.country,
      application_id: applicationId,
      period: { from: from.toISOString(), to: to.toISOString() },
      generated_at: this.clock.now().toISOString(),
      adequacy_table: { version: ADEQUACY_TABLE.version, source: ADEQUACY_TABLE.source },
      transfers: rows.map(transferView),
      posture: (await this.posture()) as unknown as Record<string, unknown>,
      audit,
      jwks: await this.keys.jwks(),
    };
    return { kid: key.kid, jws: await signEvidencePackage(key, content), content };
  }
}
