import { GENESIS_PREVIOUS_HASH, chainHash } from '@svc/merkle';
import { newId } from '@svc/ids';
import { GroupCommitQueue, commitIsolatingFailures, type JobOutcome } from '@svc/persistence';
import type { DataSource } from 'typeorm';
import { auditError } from '../audit.errors';
import { AuditEntriesRepository, isStaleHead, type ChainHead, type NewEntryRow } from './audit-entries.repository';
import { canonicalEntry, type AppendedEntry, type AuditEntryInput } from './audit-entry';
import { GENESIS_ENTRY_TYPE } from './chain-identity';

/** Settings of an {@link AuditAppender}. */
export interface AuditAppenderOptions {
  /** Region of the chain (recorded in the genesis entry). */
  readonly region: string;
  /** C2SP origin of the chain (recorded in the genesis entry). */
  readonly origin: string;
  /** Time source for `recorded_at`. */
  readonly clock: { now(): Date };
  /** Largest batch one transaction writes; default 1 000. */
  readonly maxBatch?: number;
  /** How long a non-full batch waits for company before it is written, ms; default 1. */
  readonly windowMs?: number;
  /** Called after each committed batch with the number of new entries. */
  readonly onCommitted?: (count: number) => void;
}

/** An input with its id, record time and canonical text, computed when it was queued. */
interface Pending {
  readonly input: AuditEntryInput;
  readonly id: string;
  readonly recordedAt: Date;
  readonly canonical: string;
}

const MAX_TYPE_LENGTH = 200;
const MAX_ID_LENGTH = 200;
/** Control characters (NUL cannot even be stored in Postgres text) are refused in ids and types. */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;
const UNIQUE_VIOLATION = '23505';
/** Checked-path attempts before a batch is rejected (each conflict means another writer progressed). */
const MAX_CHECKED_ATTEMPTS = 8;

/**
 * Appends entries to the region's hash chain with group commit.
 *
 * `append` canonicalises each input at once (RFC 8785; CPU work done by the caller, overlapping
 * the writer's I/O) and queues it. A writer takes up to `maxBatch` queued inputs, links and
 * hashes them in order and writes them with ONE statement; every caller's promise settles only
 * after that commit, so "appended" always means durable. While a batch commits, the next one
 * accumulates, and once it is full it is linked and sent at once (two batches in flight): the
 * database then starts the next commit as soon as the lock is free, while this process prepares
 * the one after. Chain order is the queue's order, fallbacks included.
 *
 * Two write paths, one invariant (no two entries ever share an index or a predecessor):
 * - fast path, the steady state of a single writer: the head is predicted from this writer's
 *   batches, so the batch is ONE round trip (chain lock, a guard that the predicted predecessor
 *   is stored with the predicted hash, multi-row INSERT: one implicit transaction). The guard
 *   (the batch before did not commit, the chain was restored to an earlier state), the primary
 *   key on the index (another process appended) and the unique source id (already recorded) make
 *   the whole statement fail; the batch then takes the checked path. Both paths take the same
 *   lock, so neither starves.
 * - checked path: in one transaction, an advisory lock serialises writers across processes, the
 *   head is read, inputs whose source id is already recorded resolve to the existing entry
 *   (`duplicate: true`), and the rest are inserted.
 */
export class AuditAppender {
  private readonly entries: AuditEntriesRepository;
  private readonly queue: GroupCommitQueue<Pending, AppendedEntry>;
  /**
   * The head the next batch links after, announced by the batch before it (see {@link writeBatch});
   * undefined when unknown (the next batch then takes the checked path). The first batch reads it.
   */
  private nextHead: Promise<Prediction | undefined> = Promise.resolve(undefined);
  /**
   * Settles once the last batch handed to {@link writeBatch} has settled: true when it committed
   * by the fast path, exactly as announced to the batch after it.
   */
  private settled: Promise<boolean> = Promise.resolve(false);
  /** Fast batches refused for good so far: a prediction made before the last refusal is not used. */
  private generation = 0;
  /** The head after the last checked commit. */
  private checkedHead?: ChainHead;
  /** Batches committed by each path since construction (for metrics and the benchmark). */
  readonly stats = { fastPathCommits: 0, checkedPathCommits: 0 };

  constructor(
    private readonly dataSource: DataSource,
    private readonly options: AuditAppenderOptions,
  ) {
    this.entries = new AuditEntriesRepository(dataSource);
    // Two batches in flight: the next full batch is linked and sent while the previous one
    // commits, so the database goes from one commit to the next without waiting for this process.
    // Writes serialise on the chain lock anyway: a smaller batch waits for the running one.
    const maxBatch = options.maxBatch ?? 1_000;
    this.queue = new GroupCommitQueue((batch) => this.writeBatch(batch), {
      maxBatch,
      windowMs: options.windowMs ?? 1,
      maxInFlight: 2,
      overlapAt: maxBatch,
    });
  }

  /**
   * Appends `inputs` (in this order, possibly interleaved with other callers' entries) and
   * resolves once they are committed. An input whose `sourceEventId` is already in the chain
   * resolves to the existing entry with `duplicate: true`.
   * @throws DomainError `audit_entry_invalid` (400), synchronously and for the whole call, for a
   *   bad type or id or data without a canonical JSON form (e.g. a lone surrogate, NaN).
   */
  append(inputs: readonly AuditEntryInput[]): Promise<AppendedEntry[]> {
    const recordedAt = this.options.clock.now();
    const prepared = inputs.map((input) => {
      assertInput(input);
      const id = newId('audit_record');
      let canonical: string;
      try {
        canonical = canonicalEntry(input, id, recordedAt);
      } catch (error) {
        throw auditError('audit_entry_invalid', 'Audit entry data has no canonical JSON form', {
          reason: error instanceof Error ? error.message : String(error),
        });
      }
      return { input, id, recordedAt, canonical };
    });
    return Promise.all(this.queue.submitAll(prepared));
  }

  /** Appends one entry; see {@link append}. */
  async appendOne(input: AuditEntryInput): Promise<AppendedEntry> {
    const [entry] = await this.append([input]);
    if (!entry) throw new Error('append returned no entry');
    return entry;
  }

  /** Makes sure the chain has its genesis entry (index 0); returns it. Idempotent. */
  async ensureGenesis(): Promise<{ index: number; hash: string }> {
    const existing = await this.entries.genesis();
    if (existing) return existing;
    await this.dataSource.transaction(async (manager) => {
      await this.entries.lockChain(manager);
      if (!(await this.entries.head(manager))) await this.entries.insertMany(manager, [this.genesisRow()]);
    });
    const genesis = await this.entries.genesis();
    if (!genesis) throw new Error('genesis entry missing after creation');
    return genesis;
  }

  /** Resolves when every queued append has been written (for shutdown). */
  drain(): Promise<void> {
    return this.queue.idle();
  }

  /**
   * Writes one batch. Batches reach this method in queue order (the queue hands them out in
   * order, synchronously), possibly while the previous one still commits. A batch is linked as
   * soon as the head before it is announced: at once when the batch before went by the fast path
   * (its predicted head), after it settled when it went by the checked path (the head it
   * committed). Then its fast statement goes out. Everything that follows a statement's answer
   * (fallback, retry) waits for the batch before to settle, so a fallback cannot overtake an
   * earlier batch and the chain keeps the queue's order. Never throws: an entry the database
   * refuses fails alone (see {@link checkedWithIsolation}).
   */
  private writeBatch(batch: Pending[]): Promise<Array<JobOutcome<AppendedEntry>>> {
    const before = this.nextHead;
    const previous = this.settled;
    let announce!: (head: Prediction | undefined) => void;
    this.nextHead = new Promise((resolve) => (announce = resolve));
    let asPredicted = false;
    const done = this.write(batch, before, previous, announce, () => (asPredicted = true));
    this.settled = done.then(
      () => asPredicted,
      () => false,
    );
    return done;
  }

  private async write(
    batch: readonly Pending[],
    before: Promise<Prediction | undefined>,
    previous: Promise<boolean>,
    announce: (head: Prediction | undefined) => void,
    committedAsPredicted: () => void,
  ): Promise<Array<JobOutcome<AppendedEntry>>> {
    let announced = false;
    const tell = (head: Prediction | undefined): void => {
      if (announced) return;
      announced = true;
      announce(head);
    };
    try {
      const after = await before;
      const answer = this.sendFast(batch, after, tell);
      const previousAsPredicted = await previous;
      let fast = await answer;
      if (after && fast?.error !== undefined && isStaleHead(fast.error) && previousAsPredicted) {
        // Sent while the batch before still committed, this statement reached the lock first.
        // The batch before is now stored as predicted: the same statement goes once more.
        fast = await this.sendPlan(after.head, fast.plan);
      }
      if (fast && fast.error === undefined) {
        this.stats.fastPathCommits += 1;
        this.committed(fast.plan.rows.length);
        committedAsPredicted();
        return fast.plan.entries.map((entry) => ({ ok: true, value: entry }));
      }
      // No usable head, a racing writer moved it, a source id is already recorded, the batch
      // before did not commit as predicted, or the statement failed otherwise. A prediction made
      // from this batch's (the next batch's, already sent) is not used for any batch after it.
      if (fast) this.generation += 1;
      const outcomes = await this.checkedWithIsolation(batch);
      tell(this.checkedHead && { head: this.checkedHead, generation: this.generation });
      return outcomes;
    } finally {
      tell(undefined);
    }
  }

  /**
   * Links the batch after `after` and sends it by the fast path: chain lock, a guard that the
   * predecessor is stored as predicted, multi-row INSERT, in one round trip and one implicit
   * transaction; the next batch is told the predicted head at once and can be sent before this
   * one commits (it waits for the lock in the database). Undefined, with nothing sent, when no
   * head is known or the prediction predates a refused fast statement (it may rest on rows that
   * were never stored): the batch takes the checked path.
   */
  private sendFast(
    batch: readonly Pending[],
    after: Prediction | undefined,
    tell: (head: Prediction) => void,
  ): Promise<FastAnswer> | undefined {
    if (!after || after.generation !== this.generation) return undefined;
    const plan = this.link(batch, after.head, new Map());
    tell({ head: plan.head, generation: this.generation });
    return this.sendPlan(after.head, plan);
  }

  private sendPlan(after: ChainHead, plan: Plan): Promise<FastAnswer> {
    return this.entries.lockCheckAndInsertMany(after, plan.rows).then(
      (): FastAnswer => ({ plan }),
      (error: unknown): FastAnswer => ({ plan, error }),
    );
  }

  /**
   * The checked path for the whole batch; when the database refuses it, entry by entry, so only
   * an entry that cannot be stored fails.
   */
  private checkedWithIsolation(batch: readonly Pending[]): Promise<Array<JobOutcome<AppendedEntry>>> {
    this.checkedHead = undefined;
    return commitIsolatingFailures([...batch], async (jobs) => {
      const settled = await this.checkedPath(jobs);
      return settled.map((entry) => ({ ok: true, value: entry }));
    });
  }

  /**
   * Lock, read the head and the recorded source ids, insert: one transaction. Retried on a unique
   * violation (defence in depth: under the lock the head read is current, so none is expected).
   */
  private async checkedPath(batch: readonly Pending[]): Promise<readonly AppendedEntry[]> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await this.checkedAttempt(batch);
      } catch (error) {
        if ((error as { code?: string }).code !== UNIQUE_VIOLATION || attempt >= MAX_CHECKED_ATTEMPTS) throw error;
      }
    }
  }

  private async checkedAttempt(batch: readonly Pending[]): Promise<readonly AppendedEntry[]> {
    let plan: Plan | undefined;
    await this.dataSource.transaction(async (manager) => {
      await this.entries.lockChain(manager);
      let head = await this.entries.head(manager);
      const genesis: NewEntryRow[] = head ? [] : [this.genesisRow()];
      head ??= { index: 0, hash: genesis[0]?.hash ?? GENESIS_PREVIOUS_HASH };
      const sourceIds = [...new Set(batch.map((p) => p.input.sourceEventId).filter((id): id is string => id !== undefined))];
      const recorded = new Map((await this.entries.bySourceIds(manager, sourceIds)).map((e) => [e.sourceEventId ?? '', e]));
      plan = this.link(batch, head, recorded);
      await this.entries.insertMany(manager, [...genesis, ...plan.rows]);
    });
    if (!plan) throw new Error('checked append did not run');
    this.checkedHead = plan.head;
    this.stats.checkedPathCommits += 1;
    this.committed(plan.rows.length);
    return plan.entries;
  }

  private committed(count: number): void {
    if (count > 0) this.options.onCommitted?.(count);
  }

  /**
   * Links a batch after `head`: index and predecessor hash per new entry, `duplicate: true` for a
   * source id already recorded (in `recorded` or earlier in the batch).
   */
  private link(
    batch: readonly Pending[],
    head: ChainHead,
    recorded: ReadonlyMap<string, { id: string; index: number; hash: string }>,
  ): Plan {
    const rows: NewEntryRow[] = [];
    const entries: AppendedEntry[] = [];
    const claimed = new Map<string, AppendedEntry>();
    let previous = head.hash;
    let index = head.index + 1;
    for (const pending of batch) {
      const sourceId = pending.input.sourceEventId;
      const earlier = sourceId === undefined ? undefined : (recorded.get(sourceId) ?? claimed.get(sourceId));
      if (earlier) {
        entries.push({ id: earlier.id, index: earlier.index, hash: earlier.hash, duplicate: true });
        continue;
      }
      const hash = chainHash(previous, pending.canonical);
      rows.push({
        index,
        id: pending.id,
        previousHash: previous,
        hash,
        canonical: pending.canonical,
        type: pending.input.type,
        applicationId: pending.input.applicationId ?? null,
        agentId: pending.input.agentId ?? null,
        sourceEventId: sourceId ?? null,
        createdAt: pending.recordedAt,
      });
      const appended: AppendedEntry = { id: pending.id, index, hash, duplicate: false };
      if (sourceId !== undefined) claimed.set(sourceId, appended);
      entries.push(appended);
      previous = hash;
      index += 1;
    }
    return { rows, entries, head: { index: index - 1, hash: previous } };
  }

  private genesisRow(): NewEntryRow {
    const recordedAt = this.options.clock.now();
    const id = newId('audit_record');
    const input: AuditEntryInput = { type: GENESIS_ENTRY_TYPE, data: { region: this.options.region, origin: this.options.origin } };
    const canonical = canonicalEntry(input, id, recordedAt);
    return {
      index: 0,
      id,
      previousHash: GENESIS_PREVIOUS_HASH,
      hash: chainHash(GENESIS_PREVIOUS_HASH, canonical),
      canonical,
      type: GENESIS_ENTRY_TYPE,
      applicationId: null,
      agentId: null,
      sourceEventId: null,
      createdAt: recordedAt,
    };
  }
}

/** Rows to insert, the entry that answers each input of the batch (in order) after commit, and the new head. */
interface Plan {
  readonly rows: NewEntryRow[];
  readonly entries: AppendedEntry[];
  readonly head: ChainHead;
}

/** A head to link the next batch after, and the {@link AuditAppender} generation it was made in. */
interface Prediction {
  readonly head: ChainHead;
  readonly generation: number;
}

/** What the fast statement of a batch answered: its plan, and the error when it was refused. */
interface FastAnswer {
  readonly plan: Plan;
  readonly error?: unknown;
}

function assertInput(input: AuditEntryInput): void {
  const bad = (field: string): never => {
    throw auditError('audit_entry_invalid', `Audit entry ${field} is invalid`, { field });
  };
  if (typeof input.type !== 'string' || input.type.length === 0 || input.type.length > MAX_TYPE_LENGTH) bad('type');
  if (input.type === GENESIS_ENTRY_TYPE || CONTROL.test(input.type)) bad('type');
  for (const [field, value] of [
    ['application_id', input.applicationId],
    ['agent_id', input.agentId],
    ['source_event_id', input.sourceEventId],
  ] as const) {
    if (value !== undefined && (typeof value !== 'string' || value.length === 0 || value.length > MAX_ID_LENGTH || CONTROL.test(value)))
      bad(field);
  }
  if (input.occurredAt !== undefined && !(input.occurredAt instanceof Date && Number.isFinite(input.occurredAt.getTime())))
    bad('occurred_at');
}
