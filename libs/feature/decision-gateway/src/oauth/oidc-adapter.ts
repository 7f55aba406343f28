import type { Adapter, AdapterPayload } from 'oidc-provider';
import type { DataSource } from 'typeorm';

const MODELS = 'gateway.oauth_models';
const REVOKED = 'gateway.oauth_revoked_grants';
/** How long a revoked grant is remembered: longer than any token of it can live. */
const REVOCATION_MEMORY = "interval '400 days'";

/** Models whose double redemption revokes the grant (a stolen code is being raced by its owner). */
const REVOKE_ON_RACE = new Set(['AuthorizationCode', 'DeviceCode', 'BackchannelAuthenticationRequest']);

/** Live rows only: not expired, and not of a revoked grant. */
const LIVE = `(m.expires_at IS NULL OR m.expires_at > now())
  AND NOT EXISTS (SELECT 1 FROM ${REVOKED} r WHERE r.grant_id = m.grant_id)`;
/**
 * Device codes stay readable for a while past their expiry so a polling device is told
 * `expired_token` (the provider checks the payload's `exp` itself) instead of `invalid_grant`.
 */
const EXPIRED_GRACE = "interval '10 minutes'";
const LIVE_OR_RECENTLY_EXPIRED = `(m.expires_at IS NULL OR m.expires_at > now() - ${EXPIRED_GRACE})
  AND NOT EXISTS (SELECT 1 FROM ${REVOKED} r WHERE r.grant_id = m.grant_id)`;

/** Reads the OAuth clients registered under applications (see OAuthClientsRepository). */
export interface ClientSource {
  metadataOf(clientId: string): Promise<Record<string, unknown> | undefined>;
}

/**
 * oidc-provider's storage in Postgres (`gateway.oauth_models`), one instance per model name.
 *
 * - Expiry-aware: a row past its `expires_at` is never returned (device codes: for 10 minutes
 *   more, so the device hears `expired_token`); expired rows are swept by {@link sweepExpiredOAuthRows}.
 * - `consume` is one conditional UPDATE: of concurrent redemptions exactly one marks the row; the
 *   others fail with `invalid_grant`. For codes (authorization, device) a lost race revokes the
 *   grant, so the tokens the winner got are revoked too (RFC 6749 §4.1.2: a code used twice). For
 *   refresh tokens a lost race only fails (see the rotation rule in the README); a refresh token
 *   presented after its rotation committed is caught by the provider and revokes the family.
 * - `revokeByGrantId` remembers the grant in `oauth_revoked_grants` before deleting its rows, and
 *   every read filters on it, so a token written by a request racing the revocation is dead anyway.
 * - Clients come from the registry of OAuth clients (never written through this adapter).
 */
export class PostgresOidcAdapter implements Adapter {
  constructor(
    private readonly model: string,
    private readonly dataSource: DataSource,
    private readonly clients: ClientSource,
    /** oidc-provider's `errors.InvalidGrant` (answered 400 `invalid_grant`). */
    private readonly invalidGrant: new (detail: string) => Error,
  ) {}

  async upsert(id: string, payload: AdapterPayload, expiresIn: number | undefined): Promise<void> {
    if (this.model === 'Client') throw new Error('OAuth clients are registered through the API, not the provider');
    const grantId = this.model === 'Grant' ? id : (payload.grantId ?? null);
    await this.dataSource.query(
      `INSERT INTO ${MODELS} (model, id, payload, grant_id, user_code, uid, expires_at)
       VALUES ($1, $2, $3::jsonb, $4, $5, $6, CASE WHEN $7::int IS NULL THEN NULL ELSE now() + make_interval(secs => $7::int) END)
       ON CONFLICT (model, id) DO UPDATE SET payload = EXCLUDED.payload, grant_id = EXCLUDED.grant_id, user_code = EXCLUDED.user_code,
         uid = EXCLUDED.uid, expires_at = EXCLUDED.expires_at`,
      [this.model, id, JSON.stringify(payload), grantId, payload.userCode ?? null, payload.uid ?? null, expiresIn ?? null],
    );
  }

  async find(id: string): Promise<AdapterPayload | undefined> {
    if (this.model === 'Client') return this.clients.metadataOf(id);
    return this.one(`m.model = $1 AND m.id = $2`, [this.model, id]);
  }

  async findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
    return this.one(`m.model = $1 AND m.user_code = $2`, [this.model, userCode]);
  }

  async findByUid(uid: string): Promise<AdapterPayload | undefined> {
    return this.one(`m.model = $1 AND m.uid = $2`, [this.model, uid]);
  }

  async consume(id: string): Promise<void> {
    // TypeORM answers an UPDATE with [rows, affected count].
    const [, updated] = (await this.dataSource.query(
      `UPDATE ${MODELS} m SET consumed_at = now(), payload = m.payload || jsonb_build_object('consumed', extract(epoch from now())::bigint)
       WHERE m.model = $1 AND m.id = $2 AND m.consumed_at IS NULL AND ${LIVE} RETURNING m.grant_id`,
      [this.model, id],
    )) as [unknown, number];
    if (updated === 1) return;
    if (REVOKE_ON_RACE.has(this.model)) {
      const [row] = (await this.dataSource.query(`SELECT grant_id FROM ${MODELS} WHERE model = $1 AND id = $2`, [
        this.model,
        id,
      ])) as Array<{
        grant_id: string | null;
      }>;
      if (row?.grant_id) await this.revokeByGrantId(row.grant_id);
      throw new this.invalidGrant('grant source already consumed');
    }
    if (this.model === 'RefreshToken') throw new this.invalidGrant('refresh token already used');
  }

  async destroy(id: string): Promise<void> {
    await this.dataSource.query(`DELETE FROM ${MODELS} WHERE model = $1 AND id = $2`, [this.model, id]);
  }

  async revokeByGrantId(grantId: string): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      await manager.query(
        `INSERT INTO ${REVOKED} (grant_id, expires_at) VALUES ($1, now() + ${REVOCATION_MEMORY}) ON CONFLICT (grant_id) DO NOTHING`,
        [grantId],
      );
      await manager.query(`DELETE FROM ${MODELS} WHERE grant_id = $1`, [grantId]);
    });
  }

  private async one(where: string, parameters: unknown[]): Promise<AdapterPayload | undefined> {
    const live = this.model === 'DeviceCode' ? LIVE_OR_RECENTLY_EXPIRED : LIVE;
    const rows: Array<{ payload: AdapterPayload }> = await this.dataSource.query(
      `SELECT m.payload FROM ${MODELS} m WHERE ${where} AND ${live}`,
      parameters,
    );
    return rows[0]?.payload;
  }
}

/** Deletes up to `limit` expired rows and forgotten revocations; returns how many rows went. */
export async function sweepExpiredOAuthRows(dataSource: DataSource, limit = 1_000): Promise<number> {
  const [, deleted] = (await dataSource.query(
    `DELETE FROM ${MODELS} WHERE ctid IN (SELECT ctid FROM ${MODELS} WHERE expires_at <= now() - ${EXPIRED_GRACE} LIMIT $1)`,
    [limit],
  )) as [unknown, number];
  await dataSource.query(`DELETE FROM ${REVOKED} WHERE expires_at <= now()`);
  return deleted;
}
