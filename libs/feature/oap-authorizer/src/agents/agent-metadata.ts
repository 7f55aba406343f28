import { oapError } from '../oap.errors';

/** Closed taxonomy of `agent_metadata.agent_type` (spec, agent_metadata). */
export const AGENT_TYPES = ['assistant', 'retrieval', 'coding', 'domain_specific', 'autonomous', 'supervised'] as const;
export type AgentType = (typeof AGENT_TYPES)[number];

/** Provenance stamped on every stored self-report: the integrator said so, nobody verified it. */
export const METADATA_PROVENANCE = 'integrator_self_report';

/** Self-reported agent description; every field optional. */
export interface AgentMetadata {
  agent_type?: AgentType;
  agent_model?: string;
  agent_provider?: string;
  agent_version?: string;
  agent_instance_id?: string;
  delegator_sub?: string;
  delegation_purpose?: string;
}

/** Longest value of each field, in characters (spec, Limits; the last two are ours). */
export const AGENT_METADATA_LIMITS: Readonly<Record<keyof AgentMetadata, number>> = {
  agent_type: 32,
  agent_model: 200,
  agent_provider: 200,
  agent_version: 100,
  agent_instance_id: 200,
  delegator_sub: 200,
  delegation_purpose: 1000,
};

/**
 * Validates an untrusted `agent_metadata` object. Unknown fields, wrong types and over-long values
 * are `agent_credential_malformed` (400, the spec's table); an `agent_type` outside the taxonomy is
 * `agent_type_outside_taxonomy` (400). Returns a copy holding only the known fields.
 */
export function parseAgentMetadata(input: unknown): AgentMetadata {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw oapError('agent_credential_malformed', 'agent_metadata must be an object', { field: 'agent_metadata' });
  }
  const result: Record<string, string> = {};
  for (const [key, value] of Object.entries(input as Record<string, unknown>)) {
    if (!Object.prototype.hasOwnProperty.call(AGENT_METADATA_LIMITS, key)) {
      throw oapError('agent_credential_malformed', `agent_metadata.${key} is not a known field`, { field: `agent_metadata.${key}` });
    }
    const limit = AGENT_METADATA_LIMITS[key as keyof AgentMetadata];
    if (typeof value !== 'string' || value.length === 0 || value.length > limit) {
      throw oapError('agent_credential_malformed', `agent_metadata.${key} must be a string of 1 to ${limit} characters`, {
        field: `agent_metadata.${key}`,
      });
    }
    result[key] = value;
  }
  if (result.agent_type !== undefined && !(AGENT_TYPES as readonly string[]).includes(result.agent_type)) {
    throw oapError('agent_type_outside_taxonomy', `agent_type must be one of ${AGENT_TYPES.join(', ')}`, {
      field: 'agent_metadata.agent_type',
      allowed: AGENT_TYPES,
    });
  }
  return result as AgentMetadata;
}
