export { createDataSource, dropDatabase, ensureDatabase, queryRows, type DataSourceOptions } from './data-source';
export {
  createOutboxAndInbox,
  dropOutboxAndInbox,
  outboxTraceContextMigrations,
  runMigrations,
  type MigrationClass,
  type SchemaMigrations,
} from './migrations';
export { OutboxWriter, type EventContext, type PendingEvent } from './outbox';
export { OutboxRelay, type OutboxRelayOptions } from './outbox-relay';
export { processOnce } from './inbox';
export { PollingLoop, type PollingLoopOptions, type PollRound } from './polling-loop';
export {
  commitIsolatingFailures,
  GroupCommitQueue,
  isTransactionConflict,
  NO_BATCH_RETRY,
  type BatchRetryPolicy,
  type JobOutcome,
} from './group-commit';
