import { Injectable } from '@nestjs/common';
import { Clock } from '@svc/config';
import { oapError } from '../../oap.errors';
import { AgentsRepository } from '../agents.repository';

/**
 * Records an agent's reputation snapshot (trust score 0–100 and vouch count) as computed by the
 * Verify surface; cascade step 9 compares it with the authority's reputation bounds. Called by
 * the Verify surface's consumer once it exists (no public endpoint: reputation is not self-reported).
 */
@Injectable()
export class RecordAgentReputation {
  constructor(
    private readonly agents: AgentsRepository,
    private readonly clock: Clock,
  ) {}

  async execute(agentId: string, trustScore: number, vouchCount: number): Promise<void> {
    if (!Number.isInteger(trustScore) || trustScore < 0 || trustScore > 100 || !Number.isInteger(vouchCount) || vouchCount < 0) {
      throw new RangeError('trust score must be an integer 0-100 and vouch count a non-negative integer');
    }
    const updated = await this.agents.transaction((manager) =>
      this.agents.setReputation(manager, agentId, trustScore, vouchCount, this.clock.now()),
    );
    if (!updated) throw oapError('agent_not_found', 'Agent not found', { agent_id: agentId });
  }
}
