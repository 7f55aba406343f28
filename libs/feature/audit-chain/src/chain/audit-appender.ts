import { GENESIS_PREVIOUS_HASH, chainHash } from '@svc/merkle';
import { newId } from '@svc/ids';
import { GroupCommitQueue, type JobOutcome } from '@svc/persistence';
import type { DataSource } from 'typeorm';
import { auditError } from '../audit.errors';
import { AuditEntriesRepository, type ChainHead, type NewEntryRow } from './audit-entries.repository';
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
 * the writer's I/O) and queues it. One writer takes up to `maxBatch` queued inputs, links and
 * hashes them in order and writes them with ONE statement; every caller's promise settles only
 * after that commit, so "appended" always means durable. While a batch commits, the next one
 * accumulates: throughput grows with concurrency instead of being capped by round trips.
 *
 * Two write paths, one invariant (no two entries ever share an index or a predecessor):
 * - fast path, the steady state of a single writer: the head is known from this writer's last
 *   commit, so the batch is ONE round trip (chain lock + multi-row INSERT, one implicit
 *   transaction). The primary key on the index and the unique source id make a stale head
 *   (another process appended) or an already-recorded source id fail the whole statement; the
 *   batch then takes the checked path. Both paths take the same lock, so neither starves.
 * - checked path: in one transaction, an advisory lock serialises writers across processes, the
 *   head is read, inputs whose source id is already recorded resolve to the existing entry
 *   (`duplicate: true`), and the rest are inserted.
 */
export class AuditAppender {
  private readonly entries: AuditEntriesRepository;
  private readonly queue: GroupCommitQueue<Pending, AppendedEntry>;
  /** The head after this writer's last commit; undefined when unknown or possibly stale. */
  private head?: ChainHead;
  /** Batches committed by each path since construction (for metrics and the benchmark). */
  readonly stats = { fastPathCommits: 0, checkedPathCommits: 0 };

  constructor(
    private readonly dataSource: DataSource,
    private readonly options: AuditAppenderOptions,
  ) {
    this.entries = new AuditEntriesRepository(dataSource);
    // One writer: the fast path relies on the head of this writer's own last commit.
    this.queue = new GroupCommitQueue((batch) => this.writeBatch(batch), {
      maxBatch: options.maxBatch ?? 1_000,
      windowMs: options.windowMs ?? 1,
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
   * Writes one batch by the fast or the checked path. A batch the database refuses is written
   * again entry by entry by the queue, so only an entry that cannot be stored fails.
   */
  private async writeBatch(batch: Pending[]): Promise<Array<JobOutcome<AppendedEntry>>> {
    try {
      const settled = (await this.fastPath(batch)) ?? (await this.checkedPath(batch));
      if (settled.written > 0) this.options.onCommitted?.(settled.written);
      return settled.entries.map((entry) => ({ ok: true, value: entry }));
    } catch (error) {
      this.head = undefined;
      throw error;
    }
  }

  /** One autocommitted INSERT from the cached head; undefined when the checked path must run. */
  private async fastPath(batch: readonly Pending[]): Promise<Settlement | undefined> {
    if (!this.head) return undefined;
    const plan = this.link(batch, this.head, new Map());
    try {
      await this.entries.lockAndInsertMany(plan.rows);
    } catch (error) {
      this.head = undefined;
      if ((error as { code?: string }).code === UNIQUE_VIOLATION) return undefined; // a racing writer or a recorded source id
      throw error;
    }
    this.head = plan.head;
    this.stats.fastPathCommits += 1;
    return { entries: plan.entries, written: plan.rows.length };
  }

  /**
   * Lock, read the head and the recorded source ids, insert: one transaction. Retried on a unique
   * violation (defence in depth: under the lock the head read is current, so none is expected).
   */
  private async checkedPath(batch: readonly Pending[]): Promise<Settlement> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await this.checkedAttempt(batch);
      } catch (error) {
        if ((error as { code?: string }).code !== UNIQUE_VIOLATION || attempt >= MAX_CHECKED_ATTEMPTS) throw error;
      }
    }
  }

  private async checkedAttempt(batch: readonly Pending[]): Promise<Settlement> {
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
    this.head = plan.head;
    this.stats.checkedPathCommits += 1;
    return { entries: plan.entries, written: plan.rows.length };
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

interface Settlement {
  readonly entries: readonly AppendedEntry[];
  readonly written: number;
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
