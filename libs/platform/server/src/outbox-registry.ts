import { EventPublisher, type BusConnection } from '@svc/bus';
import { OutboxNotifications, OutboxRelay, OutboxWriter } from '@svc/persistence';
import type { Logger } from '@svc/telemetry';
import type { DataSource } from 'typeorm';

/** One outbox writer and relay per service schema in this process, woken through one shared LISTEN connection. */
export class OutboxRegistry {
  private readonly relays = new Map<string, OutboxRelay>();
  private readonly writers = new Map<string, OutboxWriter>();
  private readonly notifications: OutboxNotifications;

  constructor(
    private readonly dataSource: DataSource,
    private readonly bus: BusConnection,
    private readonly databaseUrl: string,
    private readonly logger: Logger,
    applicationName = 'outbox-listener',
  ) {
    this.notifications = new OutboxNotifications(databaseUrl, applicationName);
  }

  /** The writer for a schema; its relay is created on first use and started by `startAll`. */
  writer(schema: string): OutboxWriter {
    let writer = this.writers.get(schema);
    if (!writer) {
      const relay = new OutboxRelay(this.dataSource, new EventPublisher(this.bus), {
        schema,
        prefix: this.bus.prefix,
        region: this.bus.region,
        notifications: this.notifications,
        logger: { error: (message, context) => this.logger.error(context, message) },
      });
      this.relays.set(schema, relay);
      writer = new OutboxWriter(schema, this.bus.region, () => relay.enqueued(), this.bus.personalData);
      this.writers.set(schema, writer);
    }
    return writer;
  }

  async startAll(schemas: readonly string[]): Promise<void> {
    for (const schema of schemas) this.writer(schema);
    await Promise.all([...this.relays.values()].map((relay) => relay.start()));
  }

  async stopAll(): Promise<void> {
    await Promise.all([...this.relays.values()].map((relay) => relay.stop()));
    await this.notifications.close();
  }
}
