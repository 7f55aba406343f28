import { PersonDataReplySchema, PersonDataRequestSchema } from '../gen/svc/rpc/v1/person_data_pb';
import {
  AppendReceiptTransitionReplySchema,
  AppendReceiptTransitionRequestSchema,
  FreezeReceiptReplySchema,
  FreezeReceiptRequestSchema,
} from '../gen/svc/rpc/v1/receipts_pb';

/** Request/reply methods served by receipts. */
export const RECEIPTS_RPC = {
  /** A data subject request: the person's data at one application (export), or erase it, or stop named purposes. */
  'receipts.person_data': { request: PersonDataRequestSchema, reply: PersonDataReplySchema },
  'receipts.freeze': { request: FreezeReceiptRequestSchema, reply: FreezeReceiptReplySchema },
  'receipts.append_transition': { request: AppendReceiptTransitionRequestSchema, reply: AppendReceiptTransitionReplySchema },
} as const;
