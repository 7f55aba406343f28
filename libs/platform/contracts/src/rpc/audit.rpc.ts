import {
  AppendAuditEntryReplySchema,
  AppendAuditEntryRequestSchema,
  GetAuditChainInfoReplySchema,
  GetAuditChainInfoRequestSchema,
  GetAuditInclusionProofsReplySchema,
  GetAuditInclusionProofsRequestSchema,
} from '../gen/svc/rpc/v1/audit_pb';

/** Request/reply methods served by audit-chain. */
export const AUDIT_RPC = {
  'audit.get_chain_info': { request: GetAuditChainInfoRequestSchema, reply: GetAuditChainInfoReplySchema },
  'audit.append_entry': { request: AppendAuditEntryRequestSchema, reply: AppendAuditEntryReplySchema },
  'audit.get_inclusion_proofs': { request: GetAuditInclusionProofsRequestSchema, reply: GetAuditInclusionProofsReplySchema },
} as const;
