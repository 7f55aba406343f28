import { GetAuditChainInfoReplySchema, GetAuditChainInfoRequestSchema } from '../gen/svc/rpc/v1/audit_pb';

/** Request/reply methods served by audit-chain. */
export const AUDIT_RPC = {
  'audit.get_chain_info': { request: GetAuditChainInfoRequestSchema, reply: GetAuditChainInfoReplySchema },
} as const;
