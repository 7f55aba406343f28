import { randomUUID } from 'node:crypto';
import type { Clock } from '@svc/config';
import type { KeyEncryption } from '@svc/crypto';
import type { DataSource, QueryRunner } from 'typeorm';
import { queryRows } from '../data-source';
import { RunningClaim, type AppliedMarker, type ClaimRef } from './claim-context';
import { idempotencyError } from './idempotency.errors';
import { IDEMPOTENCY_SCHEMA } from './idempotency.migrations';

/** How long a completed key answers with its stored response: 24 h (spec: kept at least 24 h). */
export const IDEMPOTENCY_RETENTION_MS = 24 * 3600 * 1000;

/**
 * How long an in-flight claim refuses duplicates (409) before another request with the same key
 * and body may take it over: 30 s, so a request that crashed mid-way never leaves its key stuck.
 */
export const IDEMPOTENCY_LOCK_MS = 30_000;

/** How often (at most) a store deletes expired keys, and how long past expiry a row may linger. */
export const IDEMPOTENCY_SWEEP_INTERVAL_MS = 60_000;

/** Response header marking an answer that replays the stored response of an earlier request. */
export const IDEMPOTENT_REPLAYED_HEADER = 'idempotent-replayed';

/** Accepted `Idempotency-Key` values: 1–255 visible ASCII characters (an sf-string of the IETF draft). */
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

/**
 * Reads and checks an `Idempotency-Key` header value: `undefined` when absent; 400
 * `idempotency_key_invalid` (naming the header) when empty, longer than 255 characters, holding a
 * character outside visible ASCII, or sent more than once.
 */
export function parseIdempotencyKey(header: string | string[] | undefined): string | undefined {
  if (header === undefined) return undefined;
  if (typeof header !== 'string' || !KEY_PATTERN.test(header)) {
    throw idempotencyError('idempotency_key_invalid', 'Idempotency-Key must be one header of 1-255 visible ASCII characters', {
      field: 'Idempotency-Key',
    });
  }
  return header;
}

/** An answer as stored and replayed: status, the headers worth replaying, the body bytes. */
export interface StoredAnswer {
  status: number;
  headers: Readonly<Record<string, string>>;
  body: Buffer;
}

/** Outcome of a claim: run the request (then `complete` or `release` with the claim), or replay. */
export type IdempotencyClaim = { state: 'new'; claim: ClaimRef } | { state: 'replay'; answer: StoredAnswer };

export type { ClaimRef };

interface RequestRow {
  fingerprint: string;
  state: string;
  claim_id: string;
  locked_until: Date;
  applied_at: Date | null;
  response_status: number | null;
  response_enc: Buffer | null;
}

/** The refusal of every retry of a request whose effect committed but whose answer was lost. */
function answerLost(): Error {
  return idempotencyError(
    'idempotency_key_answer_lost',
    'The request with this Idempotency-Key was applied but its answer was lost when the server stopped; read the resource rather than retrying',
    { field: 'Idempotency-Key' },
  );
}

/**
 * The platform's `Idempotency-Key` store (IETF draft `httpapi-idempotency-key-header`, Stripe's
 * semantics), one table per region database (`idempotency.requests`):
 *
 * - The first request with a key claims it (`in_flight`, locked for {@link IDEMPOTENCY_LOCK_MS}),
 *   runs, and stores its answer ({@link complete}); a failed one frees the key ({@link release}).
 * - The same caller, key and fingerprint afterwards: the stored answer, for
 *   {@link IDEMPOTENCY_RETENTION_MS}. Another fingerprint: 422 `idempotency_key_reused`.
 * - While the first still runs: 409 `idempotency_key_in_progress` with `Retry-After`.
 *
 * Recovery point. The request's handler commits its business transaction before the answer is
 * stored, so a process killed between the two must not let a retry run the handler again. While
 * the handler runs under a {@link RunningClaim} (see `claim-context.ts`), the first of its
 * transactions that writes something also marks the claim applied (`applied_at`, {@link markApplied}),
 * in that transaction: the mark exists exactly when the effect committed. Then:
 *
 * - An expired claim NOT applied (its holder died before committing anything) is taken over by
 *   the next request with the same fingerprint, which runs: nothing happened yet.
 * - An expired claim applied but without an answer (its holder died after the commit) is never
 *   run again: it becomes `answer_lost`, and every retry within retention gets the same 409
 *   `idempotency_key_answer_lost` (read the resource instead). While its lock lasts, 409 in progress.
 * - A late holder whose claim was taken over cannot mark it: its transaction fails and rolls back,
 *   so only the successor's effect commits.
 * - {@link release} (a non-2xx answer) deletes only a claim not applied. An applied claim's effect
 *   committed even though the answer failed (a handler that committed, then threw), so its key must
 *   not run again: a 4xx answer that can be stored becomes the stored answer (the caller's retry
 *   gets the same decision); a 5xx or an answer that cannot be stored leaves `answer_lost`.
 *
 * Keys are scoped by `caller` (the authenticated application, person or attester), never global:
 * two callers may use the same key. A claim is one `INSERT … ON CONFLICT` round trip; a replay or
 * refusal one more read; the mark one UPDATE inside the first writing transaction. Answers are
 * sealed under the key-encryption key, bound to caller and key.
 */
export class IdempotencyStore implements AppliedMarker {
  private lastSweep = 0;

  constructor(
    readonly dataSource: DataSource,
    private readonly clock: Clock,
    private readonly kek: KeyEncryption,
  ) {}

  /** Claims `key` for `caller` and a request whose canonical digest is `fingerprint`. */
  async claim(caller: string, key: string, fingerprint: string): Promise<IdempotencyClaim> {
    const now = this.clock.now();
    this.sweepInBackground(now);
    const claimId = randomUUID();
    const claimed: unknown[] = await this.dataSource.query(
      `INSERT INTO ${IDEMPOTENCY_SCHEMA}.requests AS r (caller, key, fingerprint, state, claim_id, locked_until, created_at, expires_at)
       VALUES ($1, $2, $3, 'in_flight', $4, $5, $6, $7)
       ON CONFLICT ON CONSTRAINT idempotency_requests_pk DO UPDATE
         SET fingerprint = EXCLUDED.fingerprint, state = 'in_flight', claim_id = EXCLUDED.claim_id, locked_until = EXCLUDED.locked_until,
             created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at, applied_at = NULL, response_status = NULL, response_enc = NULL
         WHERE r.expires_at <= $6
            OR (r.state = 'in_flight' AND r.applied_at IS NULL AND r.locked_until <= $6 AND r.fingerprint = EXCLUDED.fingerprint)
       RETURNING claim_id`,
      [
        caller,
        key,
        fingerprint,
        claimId,
        new Date(now.getTime() + IDEMPOTENCY_LOCK_MS),
        now,
        new Date(now.getTime() + IDEMPOTENCY_RETENTION_MS),
      ],
    );
    if (claimed.length > 0) return { state: 'new', claim: { caller, key, claimId } };
    const rows: RequestRow[] = await this.dataSource.query(
      `SELECT fingerprint, state, claim_id, locked_until, applied_at, response_status, response_enc
       FROM ${IDEMPOTENCY_SCHEMA}.requests WHERE caller = $1 AND key = $2`,
      [caller, key],
    );
    const row = rows[0];
    // Released between the two statements: claim again.
    if (!row) return this.claim(caller, key, fingerprint);
    if (row.fingerprint !== fingerprint) {
      throw idempotencyError('idempotency_key_reused', 'This Idempotency-Key was used with a different request (method, path or body)', {
        field: 'Idempotency-Key',
      });
    }
    if (row.state === 'done' && row.response_status !== null && row.response_enc !== null) {
      return { state: 'replay', answer: this.open(caller, key, row.response_status, row.response_enc) };
    }
    if (row.state === 'answer_lost') throw answerLost();
    if (row.applied_at !== null && row.locked_until.getTime() <= now.getTime()) {
      // Applied, and its holder is gone without storing the answer: final. Conditional on the
      // holder's claim, so an answer stored meanwhile wins (claim again, then replay).
      const lost: [unknown[], number] = await this.dataSource.query(
        `UPDATE ${IDEMPOTENCY_SCHEMA}.requests SET state = 'answer_lost'
         WHERE caller = $1 AND key = $2 AND claim_id = $3 AND state = 'in_flight'`,
        [caller, key, row.claim_id],
      );
      if (lost[1] === 0) return this.claim(caller, key, fingerprint);
      throw answerLost();
    }
    throw idempotencyError(
      'idempotency_key_in_progress',
      'A request with this Idempotency-Key is still being processed',
      { field: 'Idempotency-Key' },
      { 'Retry-After': '1' },
    );
  }

  /** The context object a request runs under while it holds `claim` (see {@link runUnderClaim}). */
  running(claim: ClaimRef): RunningClaim {
    return new RunningClaim(this, claim);
  }

  /**
   * Marks `claim` applied inside the transaction open on `runner` (its business writes), when
   * that transaction wrote anything: one statement, which first reads whether the transaction
   * has a transaction id (Postgres assigns one at the first write), so a read-only transaction
   * marks nothing. Throws 409 `idempotency_key_in_progress` when the claim is no longer this
   * request's (its lock expired and a retry took it over, or it was settled): the transaction
   * then rolls back, and the successor's run is the only one.
   */
  async markApplied(runner: QueryRunner, claim: ClaimRef): Promise<boolean> {
    const [row] = await queryRows<{ wrote: boolean; marked: number }>(
      runner,
      `WITH tx AS MATERIALIZED (SELECT pg_current_xact_id_if_assigned() IS NOT NULL AS wrote),
            marked AS (
              UPDATE ${IDEMPOTENCY_SCHEMA}.requests SET applied_at = $4
              WHERE caller = $1 AND key = $2 AND claim_id = $3 AND state = 'in_flight' AND (SELECT wrote FROM tx)
              RETURNING 1)
       SELECT (SELECT wrote FROM tx) AS wrote, (SELECT count(*)::int FROM marked) AS marked`,
      [claim.caller, claim.key, claim.claimId, this.clock.now()],
    );
    if (!row?.wrote) return false;
    if (row.marked === 0) {
      throw idempotencyError(
        'idempotency_key_in_progress',
        'Another request with this Idempotency-Key took over while this one ran; it was not applied',
        { field: 'Idempotency-Key' },
        { 'Retry-After': '1' },
      );
    }
    return true;
  }

  /** Stores the answer of the request holding `claim`; a claim taken over meanwhile is left alone. */
  async complete(claim: ClaimRef, answer: StoredAnswer): Promise<void> {
    await this.dataSource.query(
      `UPDATE ${IDEMPOTENCY_SCHEMA}.requests SET state = 'done', response_status = $4, response_enc = $5
       WHERE caller = $1 AND key = $2 AND claim_id = $3 AND state = 'in_flight'`,
      [claim.caller, claim.key, claim.claimId, answer.status, this.seal(claim, answer)],
    );
  }

  /**
   * Settles the claim of a request that failed (`answer`: its non-2xx answer, when it can be
   * stored). Not applied: the key is freed, so the client may retry (corrected) with it. Applied
   * (it committed, then failed): the key is kept, never run again; a 4xx `answer` becomes the
   * stored answer, anything else (a 5xx, no storable answer) leaves `idempotency_key_answer_lost`.
   */
  async release(claim: ClaimRef, answer?: StoredAnswer): Promise<void> {
    const deleted: [unknown[], number] = await this.dataSource.query(
      `DELETE FROM ${IDEMPOTENCY_SCHEMA}.requests
       WHERE caller = $1 AND key = $2 AND claim_id = $3 AND state = 'in_flight' AND applied_at IS NULL`,
      [claim.caller, claim.key, claim.claimId],
    );
    if (deleted[1] > 0) return;
    const stored = answer !== undefined && answer.status >= 400 && answer.status < 500;
    await this.dataSource.query(
      `UPDATE ${IDEMPOTENCY_SCHEMA}.requests SET state = $4, response_status = $5, response_enc = $6
       WHERE caller = $1 AND key = $2 AND claim_id = $3 AND state = 'in_flight' AND applied_at IS NOT NULL`,
      [
        claim.caller,
        claim.key,
        claim.claimId,
        stored ? 'done' : 'answer_lost',
        stored ? answer.status : null,
        stored ? this.seal(claim, answer) : null,
      ],
    );
  }

  /**
   * Deletes keys whose retention ended more than a sweep interval ago (an expired key is already
   * free to be claimed again; the sweep only bounds the table). Returns the number deleted.
   */
  async sweep(now: Date = this.clock.now()): Promise<number> {
    this.lastSweep = now.getTime();
    const deleted: [unknown[], number] = await this.dataSource.query(`DELETE FROM ${IDEMPOTENCY_SCHEMA}.requests WHERE expires_at < $1`, [
      new Date(now.getTime() - IDEMPOTENCY_SWEEP_INTERVAL_MS),
    ]);
    return deleted[1];
  }

  /** At most once per interval per process, off the request's path. */
  private sweepInBackground(now: Date): void {
    if (now.getTime() - this.lastSweep < IDEMPOTENCY_SWEEP_INTERVAL_MS) return;
    this.lastSweep = now.getTime();
    void this.sweep(now).catch(() => undefined);
  }

  private seal(claim: ClaimRef, answer: StoredAnswer): Buffer {
    return this.kek.encrypt(
      Buffer.from(JSON.stringify({ headers: answer.headers, body: answer.body.toString('base64') }), 'utf8'),
      aad(claim.caller, claim.key),
    );
  }

  private open(caller: string, key: string, status: number, sealed: Buffer): StoredAnswer {
    const stored = JSON.parse(this.kek.decrypt(sealed, aad(caller, key)).toString('utf8')) as {
      headers: Record<string, string>;
      body: string;
    };
    return { status, headers: stored.headers, body: Buffer.from(stored.body, 'base64') };
  }
}

function aad(caller: string, key: string): string {
  return `idempotency:${caller}:${key}`;
}
