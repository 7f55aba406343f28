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
import type { EventEntry } from './event-entry';

/** Events of OAP Conductor mode (oap-authorizer). */
export const OAP_EVENTS = {
  'oap.agent_registered': { schema: AgentRegisteredSchema, version: 1, producer: 'oap-authorizer', webhook: false, audited: false, meaning: 'An agent was registered' },
  'oap.capabilities_published': { schema: AgentCapabilitiesPublishedSchema, version: 1, producer: 'oap-authorizer', webhook: false, audited: false, meaning: 'An agent published a new version of its capabilities' },
  'authority.created': { schema: AuthorityChangedSchema, version: 1, producer: 'oap-authorizer', webhook: false, audited: true, meaning: 'An authority was granted to an agent' },
  'authority.suspended': { schema: AuthorityChangedSchema, version: 1, producer: 'oap-authorizer', webhook: false, audited: true, meaning: 'An authority was suspended' },
  'authority.resumed': { schema: AuthorityChangedSchema, version: 1, producer: 'oap-authorizer', webhook: false, audited: true, meaning: 'A suspended authority was resumed' },
  'authority.revoked': { schema: AuthorityChangedSchema, version: 1, producer: 'oap-authorizer', webhook: true, audited: true, meaning: 'An authority was revoked: no grant is issued under it any more' },
  'authority.exercised': { schema: AuthorityChangedSchema, version: 1, producer: 'oap-authorizer', webhook: false, audited: true, meaning: 'A grant was issued under the authority (one per exercise; no personal data)' },
  'grant.decided': { schema: GrantDecidedSchema, version: 1, producer: 'oap-authorizer', webhook: false, audited: true, meaning: 'A grant request was decided (allowed, denied or escalated) with its receipt' },
  'grant.revoked': { schema: GrantRevokedSchema, version: 1, producer: 'oap-authorizer', webhook: true, audited: true, meaning: 'A grant was revoked: its agent token and runtime receipt no longer hold' },
  'oap.approval_requested': { schema: ApprovalRequestedSchema, version: 1, producer: 'oap-authorizer', webhook: false, audited: true, meaning: 'A conductor grant request was escalated to human approval (decision-gateway opens the approval session)' },
  'oap.escalation_resolved': { schema: EscalationResolvedSchema, version: 1, producer: 'oap-authorizer', webhook: false, audited: true, meaning: 'An escalated grant request was resolved by its approval outcome' },
  'oap.approval_expired': { schema: ApprovalExpiredSchema, version: 1, producer: 'oap-authorizer', webhook: false, audited: true, meaning: 'An escalated grant request expired without an approval outcome' },
} as const satisfies Record<string, EventEntry>;
