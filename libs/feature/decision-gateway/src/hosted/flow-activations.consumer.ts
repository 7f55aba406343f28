import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { fromBinary } from '@bufbuild/protobuf';
import { BusConnection, type DeliveredEvent, type DurableConsumer } from '@svc/bus';
import { Clock } from '@svc/config';
import { FlowActivatedSchema } from '@svc/contracts';
import { processOnce } from '@svc/persistence';
import { LOGGER, consumeEvents } from '@svc/server';
import type { Logger } from '@svc/telemetry';
import { DataSource } from 'typeorm';
import { GATEWAY_SCHEMA } from '../schema';

const CONSUMER = 'decision-gateway-hosted-flows';

/**
 * Projects `flow.activated` (consent-records) into `gateway.hosted_flows`: the public hosted flow
 * page `/accord/:flow_id` carries no credential, so this is how it learns which application owns
 * the flow. A flow that was never activated (a draft) is absent, and its page answers 404.
 */
@Injectable()
export class FlowActivations implements OnApplicationBootstrap, OnApplicationShutdown {
  private consumer?: DurableConsumer;

  constructor(
    private readonly bus: BusConnection,
    private readonly dataSource: DataSource,
    private readonly clock: Clock,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    this.consumer = await consumeEvents(this.bus, this.logger, CONSUMER, 'flow.activated', async (event) => {
      await this.handle(event);
    });
  }

  async onApplicationShutdown(): Promise<void> {
    await this.consumer?.stop();
  }

  /** Records (or advances) the flow's application and active version; redeliveries are harmless. */
  async handle(event: DeliveredEvent): Promise<void> {
    const activated = fromBinary(FlowActivatedSchema, event.data);
    const applicationId = activated.meta?.applicationId ?? '';
    if (!applicationId || !activated.flowId) return;
    await processOnce(this.dataSource, GATEWAY_SCHEMA, CONSUMER, event.id, async (manager) => {
      await manager.query(
        `INSERT INTO gateway.hosted_flows (flow_id, application_id, active_version, updated_at) VALUES ($1, $2, $3, $4)
         ON CONFLICT (flow_id) DO UPDATE SET active_version = GREATEST(gateway.hosted_flows.active_version, EXCLUDED.active_version), updated_at = EXCLUDED.updated_at`,
        [activated.flowId, applicationId, activated.version, this.clock.now()],
      );
    });
  }
}
