export { createDataSource, dropDatabase, ensureDatabase, queryRows, type DataSourceOptions } from './data-source';
export {
  createOutboxAndInbox,
  dropOutboxAndInbox,
  outboxTraceContextMigrations,
  runMigrations,
  type MigrationClass,
  type SchemaMigrations,
} from './migrations';
export { OutboxWriter, type EventContext, type OutboxInsert, type PendingEvent } from './outbox';
export { OutboxNotifications } from './outbox-notifications';
export { OutboxRelay, type OutboxRelayOptions } from './outbox-relay';
export { markProcessed, processOnce, wasProcessed } from './inbox';
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
