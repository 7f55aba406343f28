import { canonicalJson, sha256Hex } from '@svc/crypto';
import type { DomainError } from '@svc/errors';
import type { TraceCarrier } from '@svc/telemetry';
import type { FlowVersion } from '../flows/flow';
import type { CollectionChannel, ConsentRecord, PurposeDecision, Subject } from './record';

/** A validated record to write: decisions already passed the refusals by name. */
export interface RecordDraft {
  applicationId: string;
  flow: FlowVersion;
  subject: Subject;
  decisions: Record<string, PurposeDecision>;
  capturedAt: Date;
  noticeDigest: string | null;
  idempotencyKey: string | null;
  channel: CollectionChannel;
  /** False suppresses the receipt email (capture `suppress_receipt`). */
  sendReceipt: boolean;
  /** SHA-256 (hex) of what a service-rendered consent field showed (embedded_field channels only). */
  renderingEvidenceDigest?: string | null;
  /** The hosted form platform that collected the consent (channel form_platform_webhook), e.g. typeform. */
  collectionPlatform?: string | null;
  /** How a decision session was presented, receipt vocabulary (channels hosted and embedded only). */
  deliveryMode?: 'redirect' | 'embed' | 'popup' | 'link' | null;
  /** Trace of the request that asked for the record; its events continue it. */
  trace?: TraceCarrier;
}

/** What a write did: `replayed` when the idempotency key returned the original record. */
export interface WriteOutcome {
  record: ConsentRecord;
  replayed: boolean;
  withdrawn: string[];
  /** True when a later draft of the same group commit already replaced this new record. */
  supersededInBatch?: boolean;
}

/** Per-draft result of a batch: the write's outcome or the domain refusal of that draft alone. */
export type BatchResult = { ok: true; outcome: WriteOutcome } | { ok: false; error: DomainError };

/** Digest of the fields that define a record, so a reused idempotency key with another body is caught. */
export function requestDigest(draft: Pick<RecordDraft, 'flow' | 'subject' | 'decisions' | 'capturedAt' | 'noticeDigest'>): string {
  return sha256Hex(
    canonicalJson({
      flow_id: draft.flow.flowId,
      subject: draft.subject,
      decisions: draft.decisions,
      captured_at: draft.capturedAt.toISOString(),
      notice_digest: draft.noticeDigest,
    }),
  );
}
