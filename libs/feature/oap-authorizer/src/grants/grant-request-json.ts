import type { GrantRequest } from './checks/cascade-step';

/** Serialises a grant request for an escalation (replayed into a grant on approval). */
export function grantRequestToJson(request: GrantRequest): Record<string, unknown> {
  return {
    application_id: request.applicationId,
    agent_id: request.agentId,
    agent_dpop_jkt: request.dpopJkt,
    scope: request.scopes,
    actions: request.actions,
    valid_until: request.validUntil.toISOString(),
    value: request.value ?? null,
    purpose: request.purpose ?? null,
    jurisdiction: request.jurisdiction ?? null,
    delegation_chain: request.delegationChain,
    agent_metadata: request.metadata ?? null,
  };
}

/** Inverse of {@link grantRequestToJson}. */
export function grantRequestFromJson(json: Record<string, unknown>): GrantRequest {
  return {
    applicationId: json.application_id as string,
    agentId: json.agent_id as string,
    dpopJkt: json.agent_dpop_jkt as string,
    scopes: json.scope as string[],
    actions: json.actions as string[],
    validUntil: new Date(json.valid_until as string),
    value: (json.value as GrantRequest['value'] | null) ?? undefined,
    purpose: (json.purpose as string | null) ?? undefined,
    jurisdiction: (json.jurisdiction as string | null) ?? undefined,
    delegationChain: json.delegation_chain as GrantRequest['delegationChain'],
    metadata: (json.agent_metadata as GrantRequest['metadata'] | null) ?? undefined,
  };
}
