import {
  AgreementDecidedSchema,
  CollaborationMemberChangedSchema,
  ApprovalDecidedSchema,
  ConsentDeniedSchema,
  ConsentGrantedSchema,
  ConsentRevokedSchema,
  FlowActivatedSchema,
  SignatureDecidedSchema,
} from '../gen/svc/events/v1/decisions_pb';

/**
 * Events of flows (consent-records) and decision sessions (decision-gateway). Approval and
 * signature outcomes share one message per kind: the event type names the aggregated outcome.
 */
export const DECISIONS_EVENTS = {
  'flow.activated': { schema: FlowActivatedSchema, version: 1 },
  'consent.granted': { schema: ConsentGrantedSchema, version: 1 },
  'consent.denied': { schema: ConsentDeniedSchema, version: 1 },
  'consent.revoked': { schema: ConsentRevokedSchema, version: 1 },
  'approval.granted': { schema: ApprovalDecidedSchema, version: 1 },
  'approval.denied': { schema: ApprovalDecidedSchema, version: 1 },
  'approval.countered': { schema: ApprovalDecidedSchema, version: 1 },
  'signature.signed': { schema: SignatureDecidedSchema, version: 1 },
  'signature.declined': { schema: SignatureDecidedSchema, version: 1 },
  'signature.expired': { schema: SignatureDecidedSchema, version: 1 },
  'signature.countered': { schema: SignatureDecidedSchema, version: 1 },
  'agreement.activated': { schema: AgreementDecidedSchema, version: 1 },
  'agreement.declined': { schema: AgreementDecidedSchema, version: 1 },
  'agreement.expired': { schema: AgreementDecidedSchema, version: 1 },
  'agreement.withdrawn': { schema: AgreementDecidedSchema, version: 1 },
  'agreement.amended': { schema: AgreementDecidedSchema, version: 1 },
  'agreement.amendment_rejected': { schema: AgreementDecidedSchema, version: 1 },
  'collaboration.member_invited': { schema: CollaborationMemberChangedSchema, version: 1 },
  'collaboration.member_accepted': { schema: CollaborationMemberChangedSchema, version: 1 },
  'collaboration.member_declined': { schema: CollaborationMemberChangedSchema, version: 1 },
  'collaboration.member_revoked': { schema: CollaborationMemberChangedSchema, version: 1 },
} as const;
