import type { Principal } from '@svc/auth';
import type { Agent } from '../agent';
import type { AgentsRepository } from '../agents.repository';
import { oapError } from '../../oap.errors';

/** The caller's agent; an agent of another application answers exactly like an unknown one (404). */
export async function ownedAgent(agents: AgentsRepository, principal: Pick<Principal, 'applicationId'>, agentId: string): Promise<Agent> {
  const agent = await agents.find(agentId);
  if (!agent || agent.applicationId !== principal.applicationId)
    throw oapError('agent_not_found', 'Agent not found', { agent_id: agentId });
  return agent;
}
