import { Injectable } from '@nestjs/common';
import { Clock } from '@svc/config';
import { sha256Hex, signCompactJws } from '@svc/crypto';
import { newRegionalId, type IdRegion } from '@svc/ids';
import { SigningKeyStore } from '@svc/key-store';
import { queryRows } from '@svc/persistence';
import { DataSource } from 'typeorm';
import { AuditChain } from '../audit-chain.runtime';
import { auditError } from '../audit.errors';
import type { StoredEntry } from '../chain/audit-entry';
import { checkpointView } from '../http/views';
import { evidenceProofs, MAX_EVIDENCE_ENTRIES } from '../proofs/evidence-proofs';
import { EVIDENCE_PACKAGE_TYP } from './verify-evidence-package';

/** Longest period one package covers. */
const MAX_PERIOD_MS = 366 * 86_400_000;
/** Most checkpoints one package lists (one every 15 minutes is about 35,000 a year). */
export const MAX_PACKAGE_CHECKPOINTS = 2_000;

/**
 * Entry types that record a receipt being issued (a consent record, a session's consent, an
 * authority, a grant decision). `consent.granted`, `consent.revoked` and `consent.denied` are the
 * names a decision session's entries had before they became `consent_session.*`: chains keep them.
 */
export const RECEIPT_ENTRY_TYPES = [
  'consent.recorded',
  'consent_session.granted',
  'consent.granted',
  'authority.created',
  'grant.decided',
] as const;
/** Entry types that record a withdrawal or a revocation. */
export const WITHDRAWAL_ENTRY_TYPES = [
  'consent.purpose_revoked',
  'consent.record_revoked',
  'consent_session.revoked',
  'consent_session.denied',
  'consent.revoked',
  'consent.denied',
  'authority.revoked',
  'grant.revoked',
] as const;

/** An issued package as stored. */
export interface StoredEvidencePackage {
  readonly seq: number;
  readonly id: string;
  readonly applicationId: string;
  readonly periodFrom: Date;
  readonly periodTo: Date;
  readonly kid: string;
  readonly package: string;
  readonly packageSha256: string;
  readonly entries: number;
  readonly checkpointSequence: number | null;
  readonly createdAt: Date;
}

interface PackageRow {
  seq: string;
  id: string;
  application_id: string;
  period_from: Date;
  period_to: Date;
  kid: string;
  package: string;
  package_sha256: string;
  entries: number;
  checkpoint_sequence: string | null;
  created_at: Date;
}

const toPackage = (row: PackageRow): StoredEvidencePackage => ({
  seq: Number(row.seq),
  id: row.id,
  applicationId: row.application_id,
  periodFrom: row.period_from,
  periodTo: row.period_to,
  kid: row.kid,
  package: row.package,
  packageSha256: row.package_sha256,
  entries: row.entries,
  checkpointSequence: row.checkpoint_sequence === null ? null : Number(row.checkpoint_sequence),
  createdAt: row.created_at,
});

const indexed = (entry: StoredEntry): Record<string, unknown> => ({
  audit_entry_id: entry.id,
  type: entry.type,
  at: entry.createdAt.toISOString(),
});

/**
 * Evidence packages of an application's audit period (`POST /api/v1/evidence_packages`): every
 * audit entry of the application appended in [from, to) — indexed as receipts, withdrawals and
 * other entries (governance steps, crossings, flow activations…) — each with its inclusion proof
 * against one signed (witness-cosigned when available) checkpoint, every checkpoint signed in the
 * period, and the region's key history (every kid with its dates and public key). The whole is a
 * compact JWS signed with the region's active key (`typ` `svc-evidence+jws`), verified offline by
 * `svc-audit verify-evidence`: any changed byte fails its signature. Issued packages are kept as
 * handed out, so the same bytes can be fetched again.
 */
@Injectable()
export class AuditEvidencePackages {
  constructor(
    private readonly chain: AuditChain,
    private readonly keys: SigningKeyStore,
    private readonly dataSource: DataSource,
    private readonly clock: Clock,
  ) {}

  async issue(applicationId: string, fromText: string, toText: string): Promise<StoredEvidencePackage> {
    const from = new Date(fromText);
    const to = new Date(toText);
    if (Number.isNaN(from.getTime())) throw auditError('period_invalid', 'from is not a date-time', { field: 'from' });
    if (Number.isNaN(to.getTime()) || to <= from) throw auditError('period_invalid', 'to must be after from', { field: 'to' });
    if (to.getTime() - from.getTime() > MAX_PERIOD_MS)
      throw auditError('period_invalid', 'A package covers at most 366 days', { field: 'to' });
    const entries = await this.chain.entries.forApplicationBetween(applicationId, from, to, MAX_EVIDENCE_ENTRIES + 1);
    if (entries.length > MAX_EVIDENCE_ENTRIES)
      throw auditError('evidence_too_large', `More than ${MAX_EVIDENCE_ENTRIES} audit entries in the period; ask for a shorter one`, {
        field: 'to',
      });
    const audit =
      entries.length > 0
        ? ((await evidenceProofs(
            this.chain,
            entries.map((entry) => entry.id),
          )) as { checkpoint: Record<string, unknown>; proofs: Record<string, unknown>[] })
        : null;
    const checkpoints = await this.chain.checkpoints.between(from, to, MAX_PACKAGE_CHECKPOINTS);
    const keyHistory = (await this.keys.list()).map((key) => ({
      kid: key.kid,
      status: key.status,
      created_at: key.createdAt.toISOString(),
      retired_at: key.retiredAt?.toISOString() ?? null,
      public_jwk: key.publicJwk,
    }));
    const now = this.clock.now();
    const id = newRegionalId('evidence_package', this.chain.region as IdRegion);
    const content = {
      object: 'evidence_package',
      format: 1,
      kind: 'audit_period',
      id,
      region: this.chain.region,
      origin: this.chain.origin,
      application_id: applicationId,
      period: { from: from.toISOString(), to: to.toISOString() },
      generated_at: now.toISOString(),
      receipts: entries.filter((entry) => (RECEIPT_ENTRY_TYPES as readonly string[]).includes(entry.type)).map(indexed),
      withdrawals: entries.filter((entry) => (WITHDRAWAL_ENTRY_TYPES as readonly string[]).includes(entry.type)).map(indexed),
      other_entries: entries
        .filter(
          (entry) =>
            !(RECEIPT_ENTRY_TYPES as readonly string[]).includes(entry.type) &&
            !(WITHDRAWAL_ENTRY_TYPES as readonly string[]).includes(entry.type),
        )
        .map(indexed),
      transfers: [],
      audit,
      checkpoints: checkpoints.map(checkpointView),
      key_history: keyHistory,
      jwks: await this.keys.jwks(),
    };
    const key = await this.keys.activeKey();
    const jws = await signCompactJws(key, content, { typ: EVIDENCE_PACKAGE_TYP });
    const rows = await queryRows<PackageRow>(
      this.dataSource.manager,
      `INSERT INTO audit.evidence_packages (id, application_id, period_from, period_to, kid, package, package_sha256, entries, checkpoint_sequence, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING *`,
      [id, applicationId, from, to, key.kid, jws, sha256Hex(jws), entries.length, audit ? Number(audit.checkpoint.sequence) : null, now],
    );
    return toPackage(rows[0]!);
  }

  async find(applicationId: string, id: string): Promise<StoredEvidencePackage> {
    const rows = await queryRows<PackageRow>(
      this.dataSource.manager,
      `SELECT * FROM audit.evidence_packages WHERE application_id = $1 AND id = $2`,
      [applicationId, id],
    );
    if (!rows[0]) throw auditError('evidence_package_not_found', 'Evidence package not found', { evidence_package_id: id });
    return toPackage(rows[0]);
  }

  async list(applicationId: string, limit: number, afterSeq: number): Promise<StoredEvidencePackage[]> {
    const rows = await queryRows<PackageRow>(
      this.dataSource.manager,
      `SELECT * FROM audit.evidence_packages WHERE application_id = $1 AND seq > $2 ORDER BY seq LIMIT $3`,
      [applicationId, afterSeq, limit],
    );
    return rows.map(toPackage);
  }
}
