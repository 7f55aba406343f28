import { Controller } from '@nestjs/common';
import { RpcHandler, type RpcReplyInit, type RpcRequest } from '@svc/bus';
import { auditError } from './audit.errors';
import { AuditChain } from './audit-chain.runtime';
import type { JsonValue } from './chain/audit-entry';
import { evidenceProofs } from './proofs/evidence-proofs';

/** Types other services may append directly (`audit.append_entry`); everything else comes from events. */
const DIRECT_APPEND_TYPES: ReadonlySet<string> = new Set([
  'residency.transfer_recorded',
  // Comply: each step of a governed change (decision-gateway), clean rooms (consent-records).
  'governance.change_requested',
  'governance.change_approved',
  'governance.change_rejected',
  'governance.change_applied',
  'governance.change_expired',
  'clean_room.proposed',
  'clean_room.accepted',
  'clean_room.declined',
  'clean_room.compared',
]);

/**
 * - `audit.get_chain_info`: the region chain's genesis hash, origin and size, for
 *   `/api/v1/oap/version` (`chronicle_genesis_hashes`) served by oap-authorizer.
 * - `audit.append_entry`: appends one fact now (a transfer-register crossing, recorded before it
 *   happens) and answers its entry id.
 * - `audit.get_inclusion_proofs`: inclusion proofs of entries against one signed checkpoint, for
 *   evidence packages.
 */
@Controller()
export class AuditRpcHandlers {
  constructor(private readonly chain: AuditChain) {}

  @RpcHandler('audit.get_chain_info')
  async chainInfo(): Promise<RpcReplyInit<'audit.get_chain_info'>> {
    return {
      region: this.chain.region,
      genesisHash: (await this.chain.genesisHash()) ?? '',
      origin: this.chain.origin,
      size: BigInt(await this.chain.entries.size()),
    };
  }

  @RpcHandler('audit.append_entry')
  async appendEntry(request: RpcRequest<'audit.append_entry'>): Promise<RpcReplyInit<'audit.append_entry'>> {
    if (!DIRECT_APPEND_TYPES.has(request.type))
      throw auditError('audit_entry_invalid', 'This entry type is not appended directly', { field: 'type' });
    let data: JsonValue;
    try {
      data = JSON.parse(request.dataJson) as JsonValue;
    } catch {
      throw auditError('audit_entry_invalid', 'data_json is not JSON', { field: 'data_json' });
    }
    const entry = await this.chain.appender.appendOne({
      type: request.type,
      applicationId: request.applicationId || undefined,
      sourceEventId: request.sourceEventId || undefined,
      data,
    });
    return { id: entry.id, index: BigInt(entry.index), hash: entry.hash };
  }

  @RpcHandler('audit.get_inclusion_proofs')
  async inclusionProofs(request: RpcRequest<'audit.get_inclusion_proofs'>): Promise<RpcReplyInit<'audit.get_inclusion_proofs'>> {
    return { evidenceJson: JSON.stringify(await evidenceProofs(this.chain, request.entryIds)) };
  }
}
