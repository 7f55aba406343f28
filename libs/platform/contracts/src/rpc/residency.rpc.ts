import { RecordTransferReplySchema, RecordTransferRequestSchema } from '../gen/svc/rpc/v1/residency_pb';

/** Request/reply methods served by the transfer register (hosted by audit-chain). */
export const RESIDENCY_RPC = {
  'residency.record_transfer': { request: RecordTransferRequestSchema, reply: RecordTransferReplySchema },
} as const;
