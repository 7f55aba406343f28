export { createDataSource, dropDatabase, ensureDatabase, queryRows, type DataSourceOptions } from './data-source';
export {
  createOutboxAndInbox,
  dropOutboxAndInbox,
  outboxTraceContextMigrations,
  runMigrations,
  type MigrationClass,
  type SchemaMigrations,
} from './migrations';
export { combinedWrite, type Statement, type WritePart } from './combined-write';
export { OutboxWriter, type EventContext, type OutboxInsert, type PendingEvent } from './outbox';
export { OutboxNotifications } from './outbox-notifications';
export { OutboxRelay, type OutboxRelayOptions } from './outbox-relay';
export { markProcessed, processOnce, processedAmong, wasProcessed } from './inbox';
export { ReadCache, untilElapsed, type ReadCacheOptions } from './read-cache';
export { PollingLoop, type PollingLoopOptions, type PollRound } from './polling-loop';
export {
  commitIsolatingFailures,
  GroupCommitQueue,
  isTransactionConflict,
  NO_BATCH_RETRY,
  RETRY_TRANSACTION_CONFLICTS,
  type BatchRetryPolicy,
  type GroupCommitOptions,
  type JobOutcome,
} from './group-commit';
export {
  IDEMPOTENCY_LOCK_MS,
  IDEMPOTENCY_RETENTION_MS,
  IDEMPOTENCY_SWEEP_INTERVAL_MS,
  IDEMPOTENT_REPLAYED_HEADER,
  IdempotencyStore,
  parseIdempotencyKey,
  type ClaimRef,
  type IdempotencyClaim,
  type StoredAnswer,
} from './idempotency/idempotency-store';
export {
  claimAwaitingMark,
  currentClaim,
  IdempotencyRecoveryPoint,
  outsideClaim,
  RunningClaim,
  runUnderClaim,
  type AppliedMarker,
} from './idempotency/claim-context';
export { idempotencyError, type IdempotencyErrorCode } from './idempotency/idempotency.errors';
export {
  CreateIdempotencyRequests1800000000000,
  IDEMPOTENCY_SCHEMA,
  idempotencyMigrations,
  RecordAppliedIdempotencyClaims1830000000000,
} from './idempotency/idempotency.migrations';
