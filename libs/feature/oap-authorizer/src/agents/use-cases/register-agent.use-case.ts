import { Inject, Injectable } from '@nestjs/common';
import { Clock, PlatformConfig } from '@svc/config';
import { newRegionalId } from '@svc/ids';
import type { OutboxWriter } from '@svc/persistence';
import { OAP_OUTBOX } from '../../tokens';
import { parseAgentMetadata } from '../agent-metadata';
import type { Agent } from '../agent';
import { AgentsRepository } from '../agents.repository';

/** Registers an agent identity (`agent_<region>_…`) under the caller's application. */
@Injectable()
export class RegisterAgent {
  constructor(
    private readonly agents: AgentsRepository,
    @Inject(OAP_OUTBOX) private readonly outbox: OutboxWriter,
    private readonly clock: Clock,
    private readonly config: PlatformConfig,
  ) {}

  /** `metadata` is untrusted input, validated against the closed taxonomy (see parseAgentMetadata). */
  async execute(applicationId: string, name: string, metadata: unknown, dpopJkt: string | null = null): Promise<Agent> {
    const parsed = metadata === undefined ? null : parseAgentMetadata(metadata);
    const now = this.clock.now();
    return this.agents.transaction(async (manager) => {
      const agent = await this.agents.insert(
        manager,
        { id: newRegionalId('agent', this.config.REGION), applicationId, name, metadata: parsed, dpopJkt },
        now,
      );
      await this.outbox.add(
        manager,
        'oap.agent_registered',
        { agentId: agent.id, applicationId, agentType: parsed?.agent_type ?? '' },
        { applicationId, occurredAt: now },
      );
      return agent;
    });
  }
}
