import { PersonDataReplySchema, PersonDataRequestSchema } from '../gen/svc/rpc/v1/person_data_pb';
import { GetFlowReplySchema, GetFlowRequestSchema, WithdrawForPersonReplySchema, WithdrawForPersonRequestSchema } from '../gen/svc/rpc/v1/flows_pb';

/** Request/reply methods served by consent-records about flows. */
export const FLOWS_RPC = {
  /** A data subject request: the person's data at one application (export), or erase it, or stop named purposes. */
  'consent_records.person_data': { request: PersonDataRequestSchema, reply: PersonDataReplySchema },
  'consent_records.get_flow': { request: GetFlowRequestSchema, reply: GetFlowReplySchema },
  'consent_records.withdraw_for_person': { request: WithdrawForPersonRequestSchema, reply: WithdrawForPersonReplySchema },
} as const;
