import { AsyncLocalStorage } from 'node:async_hooks';
import {
  EventSubscriber,
  type DataSource,
  type EntitySubscriberInterface,
  type QueryRunner,
  type TransactionCommitEvent,
  type TransactionRollbackEvent,
} from 'typeorm';

/** The key a request holds while it runs. */
export interface ClaimRef {
  caller: string;
  key: string;
  claimId: string;
}

/** What records, inside a business transaction, that the claim's request applied its effect. */
export interface AppliedMarker {
  /** The database holding the claim: only a transaction on it can carry the mark. */
  readonly dataSource: DataSource;
  /**
   * Marks `claim` applied through `runner`, inside its open transaction. False when the
   * transaction wrote nothing (nothing to mark); throws when the claim is no longer this
   * request's (its lock expired and another request took it over), so the transaction rolls back.
   */
  markApplied(runner: QueryRunner, claim: ClaimRef): Promise<boolean>;
}

/**
 * A claim while its request runs, as the request's async context carries it. `applied` turns
 * true once a transaction that carried the mark committed: later transactions of the request
 * write nothing more. `settled` turns true when the answer is being stored or the key freed: work
 * the request leaves behind (it runs in the same context) no longer marks anything.
 */
export class RunningClaim {
  applied = false;
  settled = false;
  /** Transactions that wrote the mark and have not committed yet. */
  readonly marking = new WeakSet<QueryRunner>();

  constructor(
    readonly marker: AppliedMarker,
    readonly claim: ClaimRef,
  ) {}
}

const runningClaims = new AsyncLocalStorage<RunningClaim>();

/** Runs `fn` (and everything it starts) as the request holding `claim`. */
export function runUnderClaim<T>(claim: RunningClaim, fn: () => T): T {
  return runningClaims.run(claim, fn);
}

/**
 * Runs `fn` (and everything it starts) as no request's claim: for work that one request triggers
 * on behalf of many (a group commit's batch), whose transactions must not mark the trigger's claim.
 */
export function outsideClaim<T>(fn: () => T): T {
  return runningClaims.exit(fn);
}

/**
 * True when the request whose async context this is holds a claim that no committed transaction
 * has marked yet: its next write must run in a transaction, which carries the mark (a statement
 * committed by itself, outside any transaction, would leave the claim unmarked).
 */
export function claimAwaitingMark(): boolean {
  const running = runningClaims.getStore();
  return running !== undefined && !running.applied && !running.settled;
}

/** The claim of the request whose async context this is, if it holds one. */
export function currentClaim(): RunningClaim | undefined {
  return runningClaims.getStore();
}

/** TypeORM's nesting depth of a query runner's transaction (1: the outermost; more: a savepoint). */
function depthOf(runner: QueryRunner): number {
  return (runner as unknown as { transactionDepth?: number }).transactionDepth ?? 1;
}

/**
 * The recovery point of the platform's `Idempotency-Key` store (Stripe's "atomic phases"),
 * registered on every data source ({@link createDataSource}): when the outermost transaction of
 * a request holding a claim commits, the claim is marked applied in that same transaction, so the
 * business writes and the mark commit together or not at all. A request whose process dies after
 * that commit and before its answer is stored then never runs again under its key (the store
 * answers `idempotency_key_answer_lost`); one that died before it is run again by a retry.
 *
 * Only the first committed transaction that wrote something marks (one UPDATE per claimed
 * request; a request without a claim costs one context lookup per commit). Transactions on
 * another database, savepoints, and batches run {@link outsideClaim} mark nothing.
 */
@EventSubscriber()
export class IdempotencyRecoveryPoint implements EntitySubscriberInterface {
  beforeTransactionCommit(event: TransactionCommitEvent): Promise<void> | void {
    const running = runningClaims.getStore();
    if (!running || running.applied || running.settled) return;
    if (event.connection !== running.marker.dataSource || depthOf(event.queryRunner) !== 1) return;
    return running.marker.markApplied(event.queryRunner, running.claim).then((marked) => {
      if (marked) running.marking.add(event.queryRunner);
    });
  }

  afterTransactionCommit(event: TransactionCommitEvent): void {
    const running = runningClaims.getStore();
    if (!running?.marking.has(event.queryRunner) || event.queryRunner.isTransactionActive) return;
    running.marking.delete(event.queryRunner);
    running.applied = true;
  }

  afterTransactionRollback(event: TransactionRollbackEvent): void {
    runningClaims.getStore()?.marking.delete(event.queryRunner);
  }
}
