import { GetFlowReplySchema, GetFlowRequestSchema } from '../gen/svc/rpc/v1/flows_pb';

/** Request/reply methods served by consent-records about flows. */
export const FLOWS_RPC = {
  'consent_records.get_flow': { request: GetFlowRequestSchema, reply: GetFlowReplySchema },
} as const;
