import { PersonDataReplySchema, PersonDataRequestSchema } from '../gen/svc/rpc/v1/person_data_pb';
import { PersonConsentsReplySchema, PersonConsentsRequestSchema } from '../gen/svc/rpc/v1/connections_pb';
import {
  GetFlowReplySchema,
  GetFlowRequestSchema,
  WithdrawForPersonReplySchema,
  WithdrawForPersonRequestSchema,
} from '../gen/svc/rpc/v1/flows_pb';

/** Request/reply methods served by consent-records about flows. */
export const FLOWS_RPC = {
  /** A data subject request: the person's data at one application (export), or erase it, or stop named purposes. */
  'consent_records.person_data': { request: PersonDataRequestSchema, reply: PersonDataReplySchema },
  'consent_records.get_flow': { request: GetFlowRequestSchema, reply: GetFlowReplySchema },
  'consent_records.withdraw_for_person': { request: WithdrawForPersonRequestSchema, reply: WithdrawForPersonReplySchema },
  /** decision-gateway's connections: the consents in force of a person's linked subject references. */
  'consent_records.person_consents': { request: PersonConsentsRequestSchema, reply: PersonConsentsReplySchema },
  /** decision-gateway's connections: withdraw them all (of one application, or of every one), channel `own_records`. */
  'consent_records.withdraw_person_consents': { request: PersonConsentsRequestSchema, reply: PersonConsentsReplySchema },
} as const;
