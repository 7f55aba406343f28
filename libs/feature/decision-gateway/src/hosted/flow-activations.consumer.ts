import { Controller } from '@nestjs/common';
import { fromBinary } from '@bufbuild/protobuf';
import { BusConnection, EventConsumer, type DeliveredEvent } from '@svc/bus';
import { Clock } from '@svc/config';
import { FlowActivatedSchema } from '@svc/contracts';
import { processOnce } from '@svc/persistence';
import { DataSource } from 'typeorm';
import { GATEWAY_SCHEMA } from '../schema';

const CONSUMER = 'decision-gateway-hosted-flows';

/**
 * Projects `flow.activated` (consent-records) into `gateway.hosted_flows`: the public hosted flow
 * page `/accord/:flow_id` carries no credential, so this is how it learns which application owns
 * the flow. A flow that was never activated (a draft) is absent, and its page answers 404.
 */
@Controller()
export class FlowActivations {
  constructor(
    private readonly bus: BusConnection,
    private readonly dataSource: DataSource,
    private readonly clock: Clock,
  ) {}

  /** Records (or advances) the flow's application and active version; redeliveries are harmless. */
  @EventConsumer({ durable: CONSUMER, types: 'flow.activated' })
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
