import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { PlatformConfig } from '@svc/config';
import { PollingLoop, queryRows } from '@svc/persistence';
import { LOGGER } from '@svc/server';
import type { Logger } from '@svc/telemetry';
import { DataSource, type EntityManager } from 'typeorm';
import { DevicePush, type DevicePushMessage } from './device-push';

/**
 * Owes a push to a person's linked devices, in the caller's transaction: it is sent after the
 * commit by {@link DevicePushQueue}, and never if the transaction rolls back. Without Web Push
 * configured the row is dropped unsent by the worker.
 */
export async function enqueueDevicePush(
  manager: EntityManager,
  push: { personId: string; type: DevicePushMessage['type']; reference: string; at: Date },
): Promise<void> {
  await manager.query(`INSERT INTO gateway.device_push_queue (person_id, type, reference, created_at) VALUES ($1, $2, $3, $4)`, [
    push.personId,
    push.type,
    push.reference,
    push.at,
  ]);
}

const BATCH = 50;

/** Drains `gateway.device_push_queue`: each row claimed once (SKIP LOCKED), deleted, then pushed. */
@Injectable()
export class DevicePushQueue implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly loop = new PollingLoop({
    round: () => this.drain(),
    pollMs: 1_000,
    onError: (error) =>
      this.logger.error({ err: error instanceof Error ? error.message : String(error) }, 'device push round failed; retrying'),
  });

  constructor(
    private readonly dataSource: DataSource,
    private readonly push: DevicePush,
    private readonly config: PlatformConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  onApplicationBootstrap(): void {
    this.loop.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.loop.stop();
  }

  /** Sends one batch; `busy` when the batch was full. */
  async drain(): Promise<'busy' | 'idle'> {
    const rows = await this.dataSource.transaction((manager) =>
      queryRows<{ person_id: string; type: DevicePushMessage['type']; reference: string }>(
        manager,
        `DELETE FROM gateway.device_push_queue WHERE id IN (SELECT id FROM gateway.device_push_queue ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED) RETURNING person_id, type, reference`,
        [BATCH],
      ),
    );
    for (const row of rows) {
      await this.push.notify([row.person_id], { type: row.type, reference: row.reference, url: `${this.config.publicBaseUrl}/inbox` });
    }
    return rows.length === BATCH ? 'busy' : 'idle';
  }
}
