import { faultPoint } from '@svc/config';
import { eventSubject } from '@svc/contracts';
import type { EventPublisher, OutgoingEvent } from '@svc/bus';
import { inBatchSpan } from '@svc/telemetry';
import type { DataSource } from 'typeorm';
import type { OutboxNotifications } from './outbox-notifications';
import { PollingLoop } from './polling-loop';

export interface OutboxRelayOptions {
  schema: string;
  prefix: string;
  region: string;
  /** The process's shared LISTEN connection; without it the relay wakes on `kick()` and its idle poll only. */
  notifications?: OutboxNotifications;
  batchSize?: number;
  /** Poll interval when nothing wakes the relay, ms. */
  idlePollMs?: number;
  /** Called after rows are claimed and before they are published; fault injection in tests. */
  onClaimed?: (ids: readonly string[]) => Promise<void>;
  logger?: { error(message: string, context: Record<string, unknown>): void };
}

interface OutboxRow {
  id: string;
  event_type: string;
  payload: Buffer;
  trace_parent: string | null;
  trace_state: string | null;
}

/**
 * Publishes committed outbox rows to JetStream in order, with Nats-Msg-Id = row id. Rows are
 * claimed with FOR UPDATE SKIP LOCKED inside a transaction that marks them published only after
 * every publish is acknowledged: a crash before that leaves them unpublished for the next run,
 * and a crash after publishing but before the mark republishes ids the stream (and then the
 * consumers' inboxes) drop as duplicates. Nothing committed is lost. Each event is published
 * under the trace context stored with its row, so its consumers join the writer's trace.
 */
export class OutboxRelay {
  private started = false;
  private unlisten?: () => Promise<void>;
  private readonly loop: PollingLoop;
  private readonly batchSize: number;

  constructor(
    private readonly dataSource: DataSource,
    private readonly publisher: EventPublisher,
    private readonly options: OutboxRelayOptions,
  ) {
    this.batchSize = options.batchSize ?? 256;
    this.loop = new PollingLoop({
      // Only a full batch may have left rows behind: a shorter one drained everything committed
      // before its claim, and a row committed since wakes the loop (its notification arrives
      // during the round and runs the next one at once; without a listener, the poll finds it). An empty re-check
      // after every event would cost three round trips beside the consumers it just woke.
      round: async () => ((await this.runOnce()) >= this.batchSize ? 'busy' : 'idle'),
      pollMs: options.idlePollMs ?? 1_000,
      onError: (error) =>
        options.logger?.error('outbox relay batch failed; retrying', {
          schema: options.schema,
          error: error instanceof Error ? error.message : String(error),
        }),
    });
  }

  /** Publishes one batch; returns how many rows it published. */
  async runOnce(): Promise<number> {
    const { schema } = this.options;
    const runner = this.dataSource.createQueryRunner();
    await runner.connect();
    try {
      await runner.startTransaction();
      // The oldest unpublished rows are found by an ordered scan of the partial index that stops
      // at the limit, and that marks the entries of rows published since the last round dead as it
      // passes them. Left to its estimates, the planner chose for a young, busy outbox a bitmap
      // scan instead: every entry of the index, those of published rows included (a bitmap scan
      // never marks them), one heap page each, then a sort. For this transaction only.
      await runner.query(`SELECT set_config('enable_bitmapscan', 'off', true), set_config('enable_seqscan', 'off', true)`);
      const rows: OutboxRow[] = await runner.query(
        `SELECT id, event_type, payload, trace_parent, trace_state FROM "${schema}".outbox WHERE published_at IS NULL ORDER BY seq LIMIT $1 FOR UPDATE SKIP LOCKED`,
        [this.batchSize],
      );
      if (rows.length === 0) {
        await runner.commitTransaction();
        return 0;
      }
      const ids = rows.map((row) => row.id);
      const events: OutgoingEvent[] = rows.map((row) => ({
        id: row.id,
        eventType: row.event_type,
        subject: eventSubject(this.options.prefix, this.options.region, row.event_type),
        data: new Uint8Array(row.payload),
        trace: row.trace_parent
          ? { traceparent: row.trace_parent, ...(row.trace_state ? { tracestate: row.trace_state } : {}) }
          : undefined,
      }));
      await inBatchSpan(
        `outbox relay ${schema}`,
        events.map((e) => e.trace),
        { 'db.system.name': 'postgresql', 'messaging.batch.message_count': rows.length },
        async () => {
          await this.options.onClaimed?.(ids);
          await this.publisher.publishAll(events);
          faultPoint('outbox.after-publish');
          await runner.query(`UPDATE "${schema}".outbox SET published_at = now() WHERE id = ANY($1::uuid[])`, [ids]);
          await runner.commitTransaction();
        },
      );
      return rows.length;
    } catch (error) {
      if (runner.isTransactionActive) await runner.rollbackTransaction().catch(() => undefined);
      throw error;
    } finally {
      await runner.release();
    }
  }

  /** Wakes the loop now. */
  kick(): void {
    this.loop.kick();
  }

  /**
   * Called after a local enqueue, before its transaction commits: wakes the loop only when no
   * notification will. A round run now would not see the uncommitted rows and would cost three
   * round trips for nothing; the commit's notification wakes the loop once they are visible.
   */
  enqueued(): void {
    if (!this.options.notifications?.isListening(this.options.schema)) this.kick();
  }

  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    this.unlisten = await this.options.notifications?.listen(this.options.schema, () => this.kick());
    this.loop.start();
  }

  async stop(): Promise<void> {
    await this.loop.stop();
    await this.unlisten?.().catch(() => undefined);
  }
}
