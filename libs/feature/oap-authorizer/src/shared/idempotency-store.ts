import { Injectable } from '@nestjs/common';
import { Clock } from '@svc/config';
import { KeyEncryption } from '@svc/crypto';
import type { WritePart } from '@svc/persistence';
import { DataSource, type EntityManager } from 'typeorm';
import type { DomainError } from '@svc/errors';
import { oapError } from '../oap.errors';

/** How long a completed key answers with its stored response: at least 24 h (issue 3). */
export const IDEMPOTENCY_RETENTION_MS = 24 * 3600 * 1000;

/**
 * How long an in-flight claim blocks duplicates before a crashed holder's claim may be taken over
 * (at most 30 s: a client retrying after a crash is not locked out for longer).
 */
export const IDEMPOTENCY_LOCK_MS = 30_000;

/** Response header marking an answer that is the stored response of an earlier request. */
export const IDEMPOTENT_REPLAYED_HEADER = 'idempotent-replayed';

/** A stored response; `replayed` (never stored) when it answers a repeated request. */
export interface StoredResponse {
  status: number;
  body: Record<string, unknown>;
  replayed?: true;
}

/** Headers of an answer: `Idempotent-Replayed: true` when it replays a stored response. */
export function replayHeaders(response: StoredResponse): Record<string, string> {
  return response.replayed ? { [IDEMPOTENT_REPLAYED_HEADER]: 'true' } : {};
}

/** Outcome of claiming a key. */
export type IdempotencyClaim = { state: 'new' } | { state: 'replay'; response: StoredResponse };

/** Outcome of claiming one key of a batch: new, a stored response, or refused (409 in flight, 422 other body). */
export type BatchClaim = IdempotencyClaim | { state: 'refused'; error: DomainError };

/** A claim of {@link IdempotencyStore.claimMany}: or `unrecorded`, when its gate did not record its one-time value (nothing claimed). */
export type GatedClaim = BatchClaim | { state: 'unrecorded' };

/** One-time values to record in the statement of a batch's claims, e.g. `ReplayCache.recording`. */
export interface ClaimGate {
  /** `INSERT … RETURNING digest`, with its parameters numbered from `firstParam`. */
  insert(firstParam: number): { sql: string; params: unknown[] };
}

/** One key of a batch. */
export interface KeyRef {
  applicationId: string;
  key: string;
}

interface KeyRow {
  application_id: string;
  key: string;
  request_sha256: string;
  state: string;
  response_status: number | null;
  response_enc: Buffer | null;
}

/** Accepted Idempotency-Key values: 1–255 visible ASCII characters (IETF draft: an sf-string). */
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

/**
 * Reads and checks the Idempotency-Key header: missing → 400 `idempotency_key_missing`, malformed
 * → 400 `idempotency_key_invalid` (UUIDv4 required where `uuidV4` is set).
 */
export function idempotencyKeyOf(header: string | string[] | undefined, options: { uuidV4?: boolean } = {}): string {
  if (header === undefined || header === '')
    throw oapError('idempotency_key_missing', 'The Idempotency-Key header is required', { field: 'Idempotency-Key' });
  const key = Array.isArray(header) ? undefined : header;
  if (key === undefined || !KEY_PATTERN.test(key) || (options.uuidV4 && !UUID_V4.test(key))) {
    throw oapError(
      'idempotency_key_invalid',
      options.uuidV4 ? 'Idempotency-Key must be a UUIDv4' : 'Idempotency-Key must be 1-255 visible ASCII characters',
      { field: 'Idempotency-Key' },
    );
  }
  return key;
}

/**
 * Idempotency-Key semantics of the IETF draft and Stripe, scoped per application and endpoint:
 * the first request claims the key; a duplicate while it runs gets 409; the same key with another
 * body gets 422; afterwards the stored response is returned verbatim for at least 24 h. Responses
 * are stored encrypted (they may hold a freshly minted agent token) under the region's KEK.
 */
@Injectable()
export class IdempotencyStore {
  private lastSweep = 0;

  constructor(
    private readonly dataSource: DataSource,
    private readonly clock: Clock,
    private readonly kek: KeyEncryption,
  ) {}

  async claim(applicationId: string, scope: string, key: string, requestSha256: string): Promise<IdempotencyClaim> {
    const now = this.clock.now();
    await this.sweep(now);
    const inserted: unknown[] = await this.dataSource.query(
      `INSERT INTO oap.idempotency_keys (application_id, scope, key, request_sha256, state, locked_until, created_at, expires_at)
       VALUES ($1, $2, $3, $4, 'in_flight', $5, $6, $7)
       ON CONFLICT ON CONSTRAINT idempotency_keys_pk DO UPDATE
         SET request_sha256 = EXCLUDED.request_sha256, state = 'in_flight', response_status = NULL, response_enc = NULL,
             locked_until = EXCLUDED.locked_until, created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at
         WHERE oap.idempotency_keys.expires_at < $6
            OR (oap.idempotency_keys.state = 'in_flight' AND oap.idempotency_keys.locked_until < $6 AND oap.idempotency_keys.request_sha256 = EXCLUDED.request_sha256)
       RETURNING key`,
      [
        applicationId,
        scope,
        key,
        requestSha256,
        new Date(now.getTime() + IDEMPOTENCY_LOCK_MS),
        now,
        new Date(now.getTime() + IDEMPOTENCY_RETENTION_MS),
      ],
    );
    if (inserted.length > 0) return { state: 'new' };
    const rows: Array<{ request_sha256: string; state: string; response_status: number | null; response_enc: Buffer | null }> =
      await this.dataSource.query(
        `SELECT request_sha256, state, response_status, response_enc FROM oap.idempotency_keys WHERE application_id = $1 AND scope = $2 AND key = $3`,
        [applicationId, scope, key],
      );
    const row = rows[0];
    if (!row) return this.claim(applicationId, scope, key, requestSha256);
    return { state: 'replay', response: this.storedResponse(applicationId, scope, key, requestSha256, row) };
  }

  /** The stored response of a key someone else holds: 422 for another body, 409 while in flight. */
  private storedResponse(
    applicationId: string,
    scope: string,
    key: string,
    requestSha256: string,
    row: Pick<KeyRow, 'request_sha256' | 'state' | 'response_status' | 'response_enc'>,
  ): StoredResponse {
    if (row.request_sha256 !== requestSha256)
      throw oapError('idempotency_key_reused', 'This Idempotency-Key was used with a different request body', { field: 'Idempotency-Key' });
    if (row.state !== 'done' || row.response_status === null || row.response_enc === null) {
      throw oapError(
        'idempotency_request_in_progress',
        'A request with this Idempotency-Key is still being processed',
        { field: 'Idempotency-Key' },
        { 'Retry-After': '1' },
      );
    }
    const body = JSON.parse(this.kek.decrypt(row.response_enc, aad(applicationId, scope, key)).toString('utf8')) as Record<string, unknown>;
    return { status: row.response_status, body, replayed: true };
  }

  /** Stores the response, inside the transaction that wrote the outcome (so both commit together). */
  async complete(manager: EntityManager, applicationId: string, scope: string, key: string, response: StoredResponse): Promise<void> {
    const sealed = this.kek.encrypt(Buffer.from(JSON.stringify(response.body), 'utf8'), aad(applicationId, scope, key));
    await manager.query(
      `UPDATE oap.idempotency_keys SET state = 'done', response_status = $4, response_enc = $5 WHERE application_id = $1 AND scope = $2 AND key = $3`,
      [applicationId, scope, key, response.status, sealed],
    );
  }

  /**
   * {@link claim} for a batch, inside the caller's transaction (so a claim exists only if the batch
   * commits, and a crash leaves no stale in-flight key). One outcome per entry, in order; a key
   * repeated within the batch is claimed by its first entry, later entries see it in flight (409)
   * or with another body (422). Call {@link sweep} before the transaction, not inside it.
   *
   * `gate`: one-time values recorded in the same statement (e.g. `ReplayCache.recording`), one
   * round trip for both. An entry naming a `gate` digest is claimed only when the gate records it;
   * otherwise it is `unrecorded` (a replay), claims nothing, and a later entry of its key may claim
   * it. Gate digests must be distinct within the batch. A stored response or a refusal costs one
   * more read, as with {@link claim}.
   */
  async claimMany(
    manager: EntityManager,
    scope: string,
    entries: ReadonlyArray<KeyRef & { requestSha256: string; gate?: string }>,
    now: Date,
    gate?: ClaimGate,
  ): Promise<GatedClaim[]> {
    if (entries.length === 0) return [];
    const slot = (ref: KeyRef) => `${ref.applicationId}\u0000${ref.key}`;
    // Claimed in key order (then arrival order), so concurrent batches take the same keys in the same order (no deadlock).
    const order = entries
      .map((_, index) => index)
      .sort((a, b) => {
        const [x, y] = [slot(entries[a]!), slot(entries[b]!)];
        return x < y ? -1 : x > y ? 1 : a - b;
      });
    const gated = gate?.insert(9);
    const rows: Array<{ application_id: string | null; key: string | null; digest: string | null }> = await manager.query(
      `WITH gate AS (${gated?.sql ?? 'SELECT NULL::text AS digest WHERE false'}),
       claimed AS (
         INSERT INTO oap.idempotency_keys (application_id, scope, key, request_sha256, state, locked_until, created_at, expires_at)
         SELECT e.a, $1::text, e.k, e.s, 'in_flight', $2::timestamptz, $3::timestamptz, $4::timestamptz
         FROM (
           SELECT DISTINCT ON (u.a, u.k) u.a, u.k, u.s, u.n
           FROM unnest($5::text[], $6::text[], $7::text[], $8::text[]) WITH ORDINALITY AS u(a, k, s, g, n)
           WHERE u.g IS NULL OR u.g IN (SELECT digest FROM gate)
           ORDER BY u.a, u.k, u.n
         ) e
         ORDER BY e.n
         ON CONFLICT ON CONSTRAINT idempotency_keys_pk DO UPDATE
           SET request_sha256 = EXCLUDED.request_sha256, state = 'in_flight', response_status = NULL, response_enc = NULL,
               locked_until = EXCLUDED.locked_until, created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at
           WHERE oap.idempotency_keys.expires_at < $3::timestamptz
              OR (oap.idempotency_keys.state = 'in_flight' AND oap.idempotency_keys.locked_until < $3::timestamptz AND oap.idempotency_keys.request_sha256 = EXCLUDED.request_sha256)
         RETURNING application_id, key
       )
       SELECT application_id, key, NULL::text AS digest FROM claimed UNION ALL SELECT NULL, NULL, digest FROM gate`,
      [
        scope,
        new Date(now.getTime() + IDEMPOTENCY_LOCK_MS),
        now,
        new Date(now.getTime() + IDEMPOTENCY_RETENTION_MS),
        order.map((index) => entries[index]!.applicationId),
        order.map((index) => entries[index]!.key),
        order.map((index) => entries[index]!.requestSha256),
        order.map((index) => entries[index]!.gate ?? null),
        ...(gated?.params ?? []),
      ],
    );
    const recorded = new Set(rows.flatMap((row) => (row.digest === null ? [] : [row.digest])));
    const ours = new Set(
      rows.flatMap((row) => (row.application_id === null ? [] : [slot({ applicationId: row.application_id, key: row.key! })])),
    );
    const admitted = (entry: (typeof entries)[number]) => entry.gate === undefined || recorded.has(entry.gate);
    // The entry that claims each key: its first one whose gate recorded its value.
    const first = new Map<string, number>();
    entries.forEach((entry, index) => {
      if (admitted(entry) && !first.has(slot(entry))) first.set(slot(entry), index);
    });
    const others = [...first.entries()].filter(([key]) => !ours.has(key)).map(([, index]) => entries[index]!);
    const existing = new Map<string, KeyRow>();
    if (others.length > 0) {
      const found: KeyRow[] = await manager.query(
        `SELECT k.application_id, k.key, k.request_sha256, k.state, k.response_status, k.response_enc
         FROM oap.idempotency_keys k JOIN unnest($2::text[], $3::text[]) AS u(a, key) ON k.application_id = u.a AND k.key = u.key
         WHERE k.scope = $1`,
        [scope, others.map((entry) => entry.applicationId), others.map((entry) => entry.key)],
      );
      for (const row of found) existing.set(slot({ applicationId: row.application_id, key: row.key }), row);
    }
    return entries.map((entry, index): GatedClaim => {
      if (!admitted(entry)) return { state: 'unrecorded' };
      const ownsKey = ours.has(slot(entry));
      if (ownsKey && first.get(slot(entry)) === index) return { state: 'new' };
      const row: Pick<KeyRow, 'request_sha256' | 'state' | 'response_status' | 'response_enc'> = ownsKey
        ? { request_sha256: entries[first.get(slot(entry))!]!.requestSha256, state: 'in_flight', response_status: null, response_enc: null }
        : (existing.get(slot(entry)) ?? {
            request_sha256: entry.requestSha256,
            state: 'in_flight',
            response_status: null,
            response_enc: null,
          });
      try {
        return { state: 'replay', response: this.storedResponse(entry.applicationId, scope, entry.key, entry.requestSha256, row) };
      } catch (error) {
        return { state: 'refused', error: error as DomainError };
      }
    });
  }

  /** {@link complete} for a batch, in one statement inside the transaction that wrote the outcomes. */
  async completeMany(manager: EntityManager, scope: string, entries: ReadonlyArray<KeyRef & { response: StoredResponse }>): Promise<void> {
    const part = this.settlement(scope, { completions: entries, releases: [] }, 1);
    if (part) await manager.query(part.ctes[0]!.sql, [...part.params]);
  }

  /** {@link release} for several keys in one statement (inside `manager`'s transaction when given). */
  async releaseMany(scope: string, entries: readonly KeyRef[], manager: EntityManager = this.dataSource.manager): Promise<void> {
    const part = this.settlement(scope, { completions: [], releases: entries }, 1);
    if (part) await manager.query(part.ctes[0]!.sql, [...part.params]);
  }

  /**
   * {@link completeMany} and {@link releaseMany} of a batch's keys as a part of the statement
   * that writes its outcomes (see `combinedWrite`); undefined when there is nothing to settle.
   * A key is either completed or released, never both.
   */
  settlement(
    scope: string,
    keys: { completions: ReadonlyArray<KeyRef & { response: StoredResponse }>; releases: readonly KeyRef[] },
    firstParam: number,
  ): WritePart | undefined {
    const params: unknown[] = [];
    const param = (value: unknown) => `$${firstParam + params.push(value) - 1}`;
    const ctes: Array<{ name: string; sql: string }> = [];
    const { completions, releases } = keys;
    if (completions.length > 0) {
      const [apps, keyNames, statuses, sealed, scopeParam] = [
        completions.map((entry) => entry.applicationId),
        completions.map((entry) => entry.key),
        completions.map((entry) => entry.response.status),
        completions.map((entry) =>
          this.kek.encrypt(Buffer.from(JSON.stringify(entry.response.body), 'utf8'), aad(entry.applicationId, scope, entry.key)),
        ),
        scope,
      ].map(param);
      ctes.push({
        name: 'keys_completed',
        sql: `UPDATE oap.idempotency_keys k SET state = 'done', response_status = u.status, response_enc = u.enc
       FROM unnest(${apps}::text[], ${keyNames}::text[], ${statuses}::int[], ${sealed}::bytea[]) AS u(a, key, status, enc)
       WHERE k.scope = ${scopeParam}::text AND k.application_id = u.a AND k.key = u.key`,
      });
    }
    if (releases.length > 0) {
      const [apps, keyNames, scopeParam] = [releases.map((entry) => entry.applicationId), releases.map((entry) => entry.key), scope].map(
        param,
      );
      ctes.push({
        name: 'keys_released',
        sql: `DELETE FROM oap.idempotency_keys k USING unnest(${apps}::text[], ${keyNames}::text[]) AS u(a, key)
       WHERE k.scope = ${scopeParam}::text AND k.application_id = u.a AND k.key = u.key AND k.state = 'in_flight'`,
      });
    }
    return ctes.length === 0 ? undefined : { ctes, params };
  }

  /** Frees a claim after an unexpected failure, so the client may retry with the same key. */
  async release(applicationId: string, scope: string, key: string): Promise<void> {
    await this.dataSource.query(
      `DELETE FROM oap.idempotency_keys WHERE application_id = $1 AND scope = $2 AND key = $3 AND state = 'in_flight'`,
      [applicationId, scope, key],
    );
  }

  /** Deletes long-expired keys, at most once a minute (on its own, outside any batch's locks). */
  async sweep(now: Date): Promise<void> {
    if (now.getTime() - this.lastSweep < 60_000) return;
    this.lastSweep = now.getTime();
    await this.dataSource.query(`DELETE FROM oap.idempotency_keys WHERE expires_at < $1`, [new Date(now.getTime() - 3600_000)]);
  }
}

function aad(applicationId: string, scope: string, key: string): string {
  return `idempotency:${applicationId}:${scope}:${key}`;
}
