import {
  AgentCapabilitiesPublishedSchema,
  AgentRegisteredSchema,
  ApprovalExpiredSchema,
  ApprovalRequestedSchema,
  AuthorityChangedSchema,
  EscalationResolvedSchema,
  GrantDecidedSchema,
  GrantRevokedSchema,
} from '../gen/svc/events/v1/oap_pb';

/** Events of OAP Conductor mode (oap-authorizer). */
export const OAP_EVENTS = {
  'oap.agent_registered': { schema: AgentRegisteredSchema, version: 1 },
  'oap.capabilities_published': { schema: AgentCapabilitiesPublishedSchema, version: 1 },
  'authority.created': { schema: AuthorityChangedSchema, version: 1 },
  'authority.suspended': { schema: AuthorityChangedSchema, version: 1 },
  'authority.resumed': { schema: AuthorityChangedSchema, version: 1 },
  'authority.revoked': { schema: AuthorityChangedSchema, version: 1 },
  /** A grant was issued under the authority (one per exercise; no personal data). */
  'authority.exercised': { schema: AuthorityChangedSchema, version: 1 },
  'grant.decided': { schema: GrantDecidedSchema, version: 1 },
  'grant.revoked': { schema: GrantRevokedSchema, version: 1 },
  'oap.approval_requested': { schema: ApprovalRequestedSchema, version: 1 },
  'oap.escalation_resolved': { schema: EscalationResolvedSchema, version: 1 },
  'oap.approval_expired': { schema: ApprovalExpiredSchema, version: 1 },
} as const;
