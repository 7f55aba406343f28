import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { BusConnection, type DeliveredEvent, type DurableConsumer } from '@svc/bus';
import { AgentRegisteredSchema, decodeSealedEvent } from '@svc/contracts';
import { LOGGER, consumeEvents } from '@svc/server';
import type { Logger } from '@svc/telemetry';
import { CredentialsRepository } from '../credentials/credentials.repository';
import { eventTime } from './event-time';
import { ReceiptIntake, RECEIPT_INTAKE_DELIVERY } from './receipt-intake';

const CONSUMER = 'receipts-agent-registrations';

/**
 * Learns the region's agents from `oap.agent_registered` (agent, application, agent type), so an
 * application can be offered a "registered agent" credential for its own agents only, without
 * receipts reading oap-authorizer's tables.
 */
@Injectable()
export class AgentRegistrations implements OnApplicationBootstrap, OnApplicationShutdown {
  private consumer?: DurableConsumer;

  constructor(
    private readonly bus: BusConnection,
    private readonly intake: ReceiptIntake,
    private readonly credentials: CredentialsRepository,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    this.consumer = await consumeEvents(this.bus, this.logger, CONSUMER, 'oap.agent_registered', async (event) => {
      await this.handle(event);
    }, RECEIPT_INTAKE_DELIVERY);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.consumer?.stop();
  }

  /** Records one registration; false when seen before or not a registration. */
  async handle(event: DeliveredEvent): Promise<boolean> {
    if (event.eventType !== 'oap.agent_registered') return false;
    const registered = decodeSealedEvent(AgentRegisteredSchema, event.data, this.bus.personalData);
    const applicationId = registered.meta?.applicationId || registered.applicationId;
    if (!applicationId || !registered.agentId) return false;
    return this.intake.once(CONSUMER, event, (manager) =>
      this.credentials.recordAgent(manager, { agentId: registered.agentId, applicationId, agentType: registered.agentType, registeredAt: new Date(eventTime(undefined, registered.meta)) }),
    );
  }
}
