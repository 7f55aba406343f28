import { GetFlowReplySchema, GetFlowRequestSchema, WithdrawForPersonReplySchema, WithdrawForPersonRequestSchema } from '../gen/svc/rpc/v1/flows_pb';

/** Request/reply methods served by consent-records about flows. */
export const FLOWS_RPC = {
  'consent_records.get_flow': { request: GetFlowRequestSchema, reply: GetFlowReplySchema },
  'consent_records.withdraw_for_person': { request: WithdrawForPersonRequestSchema, reply: WithdrawForPersonReplySchema },
} as const;
