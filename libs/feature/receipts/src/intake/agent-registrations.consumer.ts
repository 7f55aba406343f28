import { Controller } from '@nestjs/common';
import { BusConnection, EventConsumer, type DeliveredEvent } from '@svc/bus';
import { AgentRegisteredSchema, decodeSealedEvent } from '@svc/contracts';
import { CredentialsRepository } from '../credentials/credentials.repository';
import { eventTime } from './event-time';
import { ReceiptIntake, RECEIPT_INTAKE_DELIVERY } from './receipt-intake';

const CONSUMER = 'receipts-agent-registrations';

/**
 * Learns the region's agents from `oap.agent_registered` (agent, application, agent type), so an
 * application can be offered a "registered agent" credential for its own agents only, without
 * receipts reading oap-authorizer's tables.
 */
@Controller()
export class AgentRegistrations {
  constructor(
    private readonly bus: BusConnection,
    private readonly intake: ReceiptIntake,
    private readonly credentials: CredentialsRepository,
  ) {}

  /** Records one registration; false when seen before or not a registration. */
  @EventConsumer({ durable: CONSUMER, types: 'oap.agent_registered' }, RECEIPT_INTAKE_DELIVERY)
  async handle(event: DeliveredEvent): Promise<boolean> {
    if (event.eventType !== 'oap.agent_registered') return false;
    const registered = decodeSealedEvent(AgentRegisteredSchema, event.data, this.bus.personalData);
    const applicationId = registered.meta?.applicationId || registered.applicationId;
    if (!applicationId || !registered.agentId) return false;
    return this.intake.once(CONSUMER, event, (manager) =>
      this.credentials.recordAgent(manager, {
        agentId: registered.agentId,
        applicationId,
        agentType: registered.agentType,
        registeredAt: new Date(eventTime(undefined, registered.meta)),
      }),
    );
  }
}
