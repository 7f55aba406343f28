import type { DataSource } from 'typeorm';
import { AuditEntriesRepository } from './chain/audit-entries.repository';

/**
 * Hash (lower-case hex SHA-256) of the region chain's genesis entry, index 0, read from the
 * region database `dataSource`; null before the audit chain first started. For
 * `/api/v1/oap/version` `chronicle_genesis_hashes` in-process; across processes or regions, call
 * the `audit.get_chain_info` RPC of each region instead.
 */
export async function auditChainGenesisHash(dataSource: DataSource): Promise<string | null> {
  return (await new AuditEntriesRepository(dataSource).genesis())?.hash ?? null;
}
