import { Injectable } from '@nestjs/common';
import { Clock } from '@svc/config';
import { KeyEncryption } from '@svc/crypto';
import { DataSource, type EntityManager } from 'typeorm';
import { oapError } from '../oap.errors';

/** How long a completed key answers with its stored response: at least 24 h (issue 3). */
export const IDEMPOTENCY_RETENTION_MS = 24 * 3600 * 1000;

/** How long an in-flight claim blocks duplicates before a crashed holder's claim may be taken over. */
export const IDEMPOTENCY_LOCK_MS = 60_000;

/** A stored response. */
export interface StoredResponse {
  status: number;
  body: Record<string, unknown>;
}

/** Outcome of claiming a key. */
export type IdempotencyClaim = { state: 'new' } | { state: 'replay'; response: StoredResponse };

/** Accepted Idempotency-Key values: 1–255 visible ASCII characters (IETF draft: an sf-string). */
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

/**
 * Reads and checks the Idempotency-Key header: missing → 400 `idempotency_key_missing`, malformed
 * → 400 `idempotency_key_invalid` (UUIDv4 required where `uuidV4` is set).
 */
export function idempotencyKeyOf(header: string | string[] | undefined, options: { uuidV4?: boolean } = {}): string {
  if (header === undefined || header === '') throw oapError('idempotency_key_missing', 'The Idempotency-Key header is required', { field: 'Idempotency-Key' });
  const key = Array.isArray(header) ? undefined : header;
  if (key === undefined || !KEY_PATTERN.test(key) || (options.uuidV4 && !UUID_V4.test(key))) {
    throw oapError('idempotency_key_invalid', options.uuidV4 ? 'Idempotency-Key must be a UUIDv4' : 'Idempotency-Key must be 1-255 visible ASCII characters', { field: 'Idempotency-Key' });
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
      [applicationId, scope, key, requestSha256, new Date(now.getTime() + IDEMPOTENCY_LOCK_MS), now, new Date(now.getTime() + IDEMPOTENCY_RETENTION_MS)],
    );
    if (inserted.length > 0) return { state: 'new' };
    const rows: Array<{ request_sha256: string; state: string; response_status: number | null; response_enc: Buffer | null }> = await this.dataSource.query(
      `SELECT request_sha256, state, response_status, response_enc FROM oap.idempotency_keys WHERE application_id = $1 AND scope = $2 AND key = $3`,
      [applicationId, scope, key],
    );
    const row = rows[0];
    if (!row) return this.claim(applicationId, scope, key, requestSha256);
    if (row.request_sha256 !== requestSha256) throw oapError('idempotency_key_reused', 'This Idempotency-Key was used with a different request body', { field: 'Idempotency-Key' });
    if (row.state !== 'done' || row.response_status === null || row.response_enc === null) {
      throw oapError('idempotency_request_in_progress', 'A request with this Idempotency-Key is still being processed', { field: 'Idempotency-Key' }, { 'Retry-After': '1' });
    }
    const body = JSON.parse(this.kek.decrypt(row.response_enc, aad(applicationId, scope, key)).toString('utf8')) as Record<string, unknown>;
    return { state: 'replay', response: { status: row.response_status, body } };
  }

  /** Stores the response, inside the transaction that wrote the outcome (so both commit together). */
  async complete(manager: EntityManager, applicationId: string, scope: string, key: string, response: StoredResponse): Promise<void> {
    const sealed = this.kek.encrypt(Buffer.from(JSON.stringify(response.body), 'utf8'), aad(applicationId, scope, key));
    await manager.query(
      `UPDATE oap.idempotency_keys SET state = 'done', response_status = $4, response_enc = $5 WHERE application_id = $1 AND scope = $2 AND key = $3`,
      [applicationId, scope, key, response.status, sealed],
    );
  }

  /** Frees a claim after an unexpected failure, so the client may retry with the same key. */
  async release(applicationId: string, scope: string, key: string): Promise<void> {
    await this.dataSource.query(`DELETE FROM oap.idempotency_keys WHERE application_id = $1 AND scope = $2 AND key = $3 AND state = 'in_flight'`, [applicationId, scope, key]);
  }

  private async sweep(now: Date): Promise<void> {
    if (now.getTime() - this.lastSweep < 60_000) return;
    this.lastSweep = now.getTime();
    await this.dataSource.query(`DELETE FROM oap.idempotency_keys WHERE expires_at < $1`, [new Date(now.getTime() - 3600_000)]);
  }
}

function aad(applicationId: string, scope: string, key: string): string {
  return `idempotency:${applicationId}:${scope}:${key}`;
}
