import {
  AppendReceiptTransitionReplySchema,
  AppendReceiptTransitionRequestSchema,
  FreezeReceiptReplySchema,
  FreezeReceiptRequestSchema,
} from '../gen/svc/rpc/v1/receipts_pb';

/** Request/reply methods served by receipts. */
export const RECEIPTS_RPC = {
  'receipts.freeze': { request: FreezeReceiptRequestSchema, reply: FreezeReceiptReplySchema },
  'receipts.append_transition': { request: AppendReceiptTransitionRequestSchema, reply: AppendReceiptTransitionReplySchema },
} as const;
