export { ReceiptsModule } from './receipts.module';
export { receiptsFeature } from './receipts.feature';
export { RECEIPTS_SCHEMA } from './schema';
export { receiptsMigrations } from './storage/migrations';
export { receiptsError, type ReceiptsErrorCode } from './receipts.errors';
export * from './record/receipt-document';
export type * from './record/inputs';
export { RECEIPT_CONFORMS_TO, RECEIPT_SCHEMA_VERSION } from './record/versions';
export { buildReceipt } from './record/build-receipt';
export { buildConsentRecord } from './record/build-consent-record';
export { buildNoticeRecord } from './record/build-notice-record';
export { buildAuthorizationRecord } from './record/build-authorization-record';
export { noticeHash, noticeHashInput } from './record/notice-hash';
export { projectReceipt, type ReceiptProjection, type ReceiptStatus } from './events/project-events';
export { TRANSITIONS_BY_RECORD_TYPE, type ReceiptTransition, type ReceiptTransitionType } from './events/transitions';
export { RECEIPT_FLAVORS, parseFlavor, type ReceiptFlavor } from './flavors/flavor';
export { canonicalReceiptBytes } from './flavors/canonical';
export { dpvReceipt, isPureAuthority, DPV_CONTEXT } from './flavors/dpv';
export { RECEIPT_JWS_TYP, signReceipt, type SignedReceipt } from './flavors/signed';
export { verifySignedReceipt, type ReceiptVerification, type ReceiptVerificationFailure } from './verification/verify-signed-receipt';
export {
  SIGNATURE_RECEIPT_TYP,
  verifyAgreementReceipt,
  type AgreementReceiptFailure,
  type AgreementReceiptVerification,
} from './verification/verify-agreement-receipt';
export {
  RECEIPT_SCHEMA_ID,
  RECEIPT_SCHEMA_ID_PATH,
  RECEIPT_SCHEMA_MEDIA_TYPE,
  RECEIPT_SCHEMA_PATH,
  RECEIPT_SCHEMA_FILE,
  receiptSchemaBytes,
  validateReceiptDocument,
  type SchemaProblem,
} from './schema/published-schema';
export { FreezeReceipt, type FrozenReceiptRef } from './use-cases/freeze-receipt.use-case';
export { AppendReceiptTransition } from './use-cases/append-receipt-transition.use-case';
export { RenderReceipt, type RenderedReceipt } from './use-cases/render-receipt.use-case';
export { ReceiptsRepository, type FrozenReceipt, type ReceiptSource } from './storage/receipts.repository';
export { ReceiptsConfig } from './receipts.config';
export { ApprovalDecisions, approvalRecordId } from './intake/approval-decisions.consumer';
export { AuthorityEvents } from './intake/authority-events.consumer';
export { ConsentRecordEvents } from './intake/consent-record-events.consumer';
export { StatusLists, STATUS_LIST_SIZE, pickFreePosition } from './credentials/status-lists';
