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
import type { EventEntry } from './event-entry';

/**
 * Events of flows (consent-records) and decision sessions (decision-gateway). Approval and
 * signature outcomes share one message per kind: the event type names the aggregated outcome.
 * `consent.granted`, `.denied` and `.revoked` are a decision session's; the consent records'
 * events are RECORDS_EVENTS.
 */
export const DECISIONS_EVENTS = {
  'flow.activated': { schema: FlowActivatedSchema, version: 1, producer: 'consent-records', webhook: true, audited: true, meaning: 'A flow version became the active one' },
  'consent.granted': { schema: ConsentGrantedSchema, version: 1, producer: 'decision-gateway', webhook: true, audited: true, meaning: 'A person granted a consent decision session (at least one purpose)' },
  'consent.denied': { schema: ConsentDeniedSchema, version: 1, producer: 'decision-gateway', webhook: true, audited: true, meaning: 'A person declined a consent decision session' },
  'consent.revoked': { schema: ConsentRevokedSchema, version: 1, producer: 'decision-gateway', webhook: true, audited: true, meaning: 'A fulfilled consent decision session was revoked (by the person or the application)' },
  'approval.granted': { schema: ApprovalDecidedSchema, version: 1, producer: 'decision-gateway', webhook: true, audited: true, meaning: 'An approval session reached its quorum of approvals' },
  'approval.denied': { schema: ApprovalDecidedSchema, version: 1, producer: 'decision-gateway', webhook: true, audited: true, meaning: 'An approval session was denied' },
  'approval.countered': { schema: ApprovalDecidedSchema, version: 1, producer: 'decision-gateway', webhook: true, audited: true, meaning: 'An approval session was answered with a counter-proposal' },
  'signature.signed': { schema: SignatureDecidedSchema, version: 1, producer: 'decision-gateway', webhook: true, audited: true, meaning: 'A signature request reached its quorum of signatures' },
  'signature.declined': { schema: SignatureDecidedSchema, version: 1, producer: 'decision-gateway', webhook: true, audited: true, meaning: 'A signature request was declined' },
  'signature.expired': { schema: SignatureDecidedSchema, version: 1, producer: 'decision-gateway', webhook: true, audited: true, meaning: 'A signature request expired unsigned' },
  'signature.countered': { schema: SignatureDecidedSchema, version: 1, producer: 'decision-gateway', webhook: true, audited: true, meaning: 'A signature request was answered with a counter-proposal' },
  'agreement.activated': { schema: AgreementDecidedSchema, version: 1, producer: 'decision-gateway', webhook: true, audited: false, meaning: 'A multi-party agreement reached its quorum and is binding' },
  'agreement.declined': { schema: AgreementDecidedSchema, version: 1, producer: 'decision-gateway', webhook: true, audited: false, meaning: 'A multi-party agreement can no longer reach its quorum' },
  'agreement.expired': { schema: AgreementDecidedSchema, version: 1, producer: 'decision-gateway', webhook: true, audited: false, meaning: 'A multi-party agreement passed its deadline before its quorum' },
  'agreement.withdrawn': { schema: AgreementDecidedSchema, version: 1, producer: 'decision-gateway', webhook: true, audited: false, meaning: 'The application withdrew a multi-party agreement before its outcome' },
  'agreement.amended': { schema: AgreementDecidedSchema, version: 1, producer: 'decision-gateway', webhook: true, audited: false, meaning: 'The parties adopted an amendment of an active agreement' },
  'agreement.amendment_rejected': { schema: AgreementDecidedSchema, version: 1, producer: 'decision-gateway', webhook: true, audited: false, meaning: 'An amendment of an active agreement can no longer reach its quorum' },
  'collaboration.member_invited': { schema: CollaborationMemberChangedSchema, version: 1, producer: 'decision-gateway', webhook: true, audited: false, meaning: 'The owner invited an application or a person into a collaboration' },
  'collaboration.member_accepted': { schema: CollaborationMemberChangedSchema, version: 1, producer: 'decision-gateway', webhook: true, audited: false, meaning: 'An invitation into a collaboration was accepted' },
  'collaboration.member_declined': { schema: CollaborationMemberChangedSchema, version: 1, producer: 'decision-gateway', webhook: true, audited: false, meaning: 'An invitation into a collaboration was declined' },
  'collaboration.member_revoked': { schema: CollaborationMemberChangedSchema, version: 1, producer: 'decision-gateway', webhook: true, audited: false, meaning: 'The owner removed an invitation or a member from a collaboration' },
} as const satisfies Record<string, EventEntry>;
