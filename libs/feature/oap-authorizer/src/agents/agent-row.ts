import type { AgentMetadata } from './agent-metadata';
import type { Agent } from './agent';

/** An `oap.agents` row as selected with {@link AGENT_COLUMNS}. */
export interface AgentRow {
  id: string;
  application_id: string;
  name: string;
  status: 'active' | 'suspended';
  agent_metadata: AgentMetadata | null;
  trust_score: number;
  vouch_count: number;
  current_version_id: string | null;
  suppressed: boolean;
  dpop_jkt: string | null;
  created_at: Date;
}

export const AGENT_COLUMNS =
  'id, application_id, name, status, agent_metadata, trust_score, vouch_count, current_version_id, suppressed, dpop_jkt, created_at';

export function toAgent(row: AgentRow): Agent {
  return {
    id: row.id,
    applicationId: row.application_id,
    name: row.name,
    status: row.status,
    metadata: row.agent_metadata,
    trustScore: row.trust_score,
    vouchCount: row.vouch_count,
    currentVersionId: row.current_version_id,
    suppressed: row.suppressed,
    dpopJkt: row.dpop_jkt,
    createdAt: row.created_at,
  };
}
