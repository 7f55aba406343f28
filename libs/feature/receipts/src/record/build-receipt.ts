import { buildApprovalRecord } from './build-approval-record';
import { buildAuthorizationRecord } from './build-authorization-record';
import { buildConsentRecord } from './build-consent-record';
import { buildNoticeRecord } from './build-notice-record';
import type { ReceiptInput } from './inputs';
import type { ReceiptDocument } from './receipt-document';

/** Builds the frozen `svc-cr/2.13` document of any receipt input (pure: no I/O, no clock). */
export function buildReceipt(input: ReceiptInput): ReceiptDocument {
  switch (input.kind) {
    case 'consent_record':
      return buildConsentRecord(input);
    case 'notice_record':
      return buildNoticeRecord(input);
    case 'authorization_record':
      return buildAuthorizationRecord(input);
    case 'approval_record':
      return buildApprovalRecord(input);
  }
}
