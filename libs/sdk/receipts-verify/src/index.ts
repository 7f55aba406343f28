export {
  ISS_ROLES,
  ReceiptVerificationError,
  verifyReceipt,
  type IssRole,
  type ReceiptJwk,
  type ReceiptKeySource,
  type ReceiptVerificationCode,
  type VerifiedReceipt,
  type VerifyReceiptOptions,
} from './verify-receipt';
