import type { AgentMetadata } from './agent-metadata';
import type { AgentResponse } from './agent.response';

/** An agent identity registered under an application (`agent_<region>_<base32>`). */
export interface Agent {
  id: string;
  applicationId: string;
  name: string;
  status: 'active' | 'suspended';
  metadata: AgentMetadata | null;
  /** Verify-surface reputation snapshot used by cascade step 9 (0–100 and a count). */
  trustScore: number;
  vouchCount: number;
  currentVersionId: string | null;
  /** Operator suppression: the capability document answers as undiscoverable. */
  suppressed: boolean;
  /** RFC 7638 thumbprint of the agent's DPoP key, when registered. */
  dpopJkt: string | null;
  createdAt: Date;
}

/** One scope of a capability manifest. */
export interface CapabilityScope {
  id: string;
  label: string;
  parent: string | null;
  custom: boolean;
  status: string;
}

/** A published capability manifest version (`tpcv_<region>_…`). */
export interface CapabilityVersion {
  versionId: string;
  agentId: string;
  scopes: CapabilityScope[];
  actions: string[];
  /** SHA-256 hex of the canonical manifest: the drift reference of cascade step 15. */
  manifestSha256: string;
  publishedAt: Date;
}

/** The API view of an agent. */
export function agentView(agent: Agent): Record<string, unknown> {
  return {
    id: agent.id,
    object: 'agent',
    application_id: agent.applicationId,
    name: agent.name,
    status: agent.status,
    agent_metadata: agent.metadata,
    agent_metadata_provenance: agent.metadata ? 'integrator_self_report' : null,
    capability_version_id: agent.currentVersionId,
    created_at: agent.createdAt.toISOString(),
  } satisfies AgentResponse;
}
