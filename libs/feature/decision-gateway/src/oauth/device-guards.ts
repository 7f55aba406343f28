import { createHash } from 'node:crypto';
import type { DataSource } from 'typeorm';

const MODELS = 'gateway.oauth_models';
/** RFC 8628 §3.5: every `slow_down` adds 5 seconds to the polling interval. */
const SLOW_DOWN_STEP_SECONDS = 5;

function digest(value: string): string {
  return createHash('sha256').update(value).digest('base64url');
}

/**
 * The device flow's guards the provider lacks, kept in `oauth_models` beside its rows (only
 * digests of device codes and addresses):
 * - polling: a device polling the token endpoint sooner than its interval after its previous poll
 *   gets `slow_down`, and its interval grows by 5 seconds (RFC 8628 §3.5);
 * - wrong user codes: an address that entered `maxWrong` wrong codes within the window is refused
 *   on the user-code page until the window passes.
 */
export class DeviceGuards {
  constructor(
    private readonly dataSource: DataSource,
    private readonly options: { intervalSeconds: number; maxWrong: number; windowSeconds: number },
  ) {}

  /** True when this poll is too early (answer `slow_down`, the interval grows); records the poll either way. */
  async pollTooSoon(deviceCode: string): Promise<boolean> {
    const id = digest(deviceCode);
    return this.dataSource.transaction(async (manager) => {
      await manager.query(
        `INSERT INTO ${MODELS} (model, id, payload, expires_at)
           VALUES ('DevicePoll', $1, jsonb_build_object('last', 0, 'interval', $2::int), now() + make_interval(secs => $3::int))
         ON CONFLICT (model, id) DO NOTHING`,
        [id, this.options.intervalSeconds, this.options.windowSeconds],
      );
      const [row] = (await manager.query(
        `SELECT (payload->>'last')::float8 AS last, (payload->>'interval')::int AS interval, extract(epoch from clock_timestamp())::float8 AS now
           FROM ${MODELS} WHERE model = 'DevicePoll' AND id = $1 FOR UPDATE`,
        [id],
      )) as Array<{ last: number; interval: number; now: number }>;
      if (!row) return false;
      const tooSoon = row.now - row.last < row.interval;
      await manager.query(
        `UPDATE ${MODELS} SET payload = jsonb_build_object('last', $2::float8, 'interval', $3::int) WHERE model = 'DevicePoll' AND id = $1`,
        [id, row.now, tooSoon ? row.interval + SLOW_DOWN_STEP_SECONDS : row.interval],
      );
      return tooSoon;
    });
  }

  /** True when this address may not try another user code now. */
  async locked(address: string): Promise<boolean> {
    const rows: Array<{ count: number }> = await this.dataSource.query(
      `SELECT (payload->>'count')::int AS count FROM ${MODELS} WHERE model = 'DeviceWrongCodes' AND id = $1 AND expires_at > now()`,
      [digest(address)],
    );
    return (rows[0]?.count ?? 0) >= this.options.maxWrong;
  }

  /** Counts a wrong user code entered from this address. */
  async wrongCode(address: string): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO ${MODELS} AS m (model, id, payload, expires_at)
         VALUES ('DeviceWrongCodes', $1, '{"count": 1}'::jsonb, now() + make_interval(secs => $2::int))
       ON CONFLICT (model, id) DO UPDATE SET
         payload = CASE WHEN m.expires_at > now() THEN jsonb_build_object('count', (m.payload->>'count')::int + 1) ELSE '{"count": 1}'::jsonb END,
         expires_at = CASE WHEN m.expires_at > now() THEN m.expires_at ELSE EXCLUDED.expires_at END`,
      [digest(address), this.options.windowSeconds],
    );
  }
}
