// Generated messages (buf generate; never edited by hand), one line per proto file.
export * from './gen/svc/events/v1/meta_pb';
export * from './gen/svc/events/v1/connect_pb';
export * from './gen/svc/events/v1/people_pb';
export * from './gen/svc/events/v1/oauth_pb';
export * from './gen/svc/events/v1/delegations_pb';
export * from './gen/svc/events/v1/keys_pb';
export * from './gen/svc/events/v1/decisions_pb';
export * from './gen/svc/events/v1/records_pb';
export * from './gen/svc/events/v1/directory_pb';
export * from './gen/svc/rpc/v1/flows_pb';
export * from './gen/svc/events/v1/oap_pb';
export * from './gen/svc/rpc/v1/errors_pb';
export * from './gen/svc/rpc/v1/access_pb';
export * from './gen/svc/rpc/v1/credentials_pb';
export * from './gen/svc/rpc/v1/applications_pb';
export * from './gen/svc/rpc/v1/oap_pb';
export * from './gen/svc/rpc/v1/people_pb';
export * from './gen/svc/events/v1/audit_pb';
export * from './gen/svc/rpc/v1/audit_pb';
export * from './gen/svc/events/v1/webhooks_pb';
export * from './gen/svc/events/v1/oversight_pb';
export * from './gen/svc/rpc/v1/oversight_pb';
export * from './gen/svc/rpc/v1/receipts_pb';
export * from './gen/svc/options/v1/personal_data_pb';
// Subject maps.
export {
  EVENTS,
  RPC_METHODS,
  eventSubject,
  regionEventWildcard,
  regionStreamName,
  deadLetterStreamName,
  deadLetterSubject,
  deadLetterWildcard,
  rpcSubject,
  type EventType,
  type RpcMethod,
} from './subjects';
export { decodeEvent, decodeEventFields, isEventType } from './decode-event';
export { sharedMessage, toBinarySharing } from './shared-messages';
export { pooledRandomByte, pooledRandomBytes } from './random-pool';
export type { EventEntry, EventProducer } from './events/event-entry';
export {
  AUDITED_EVENT_TYPES,
  EVENT_CATALOGUE,
  WEBHOOK_EVENT_TYPES,
  WEBHOOK_SOURCE_EVENT_TYPES,
  eventTypesProducedBy,
  isAuditedEventType,
  isWebhookEventType,
  webhookTypesOf,
  type WebhookEventType,
  type WebhookSourceEventType,
} from './events/catalogue';
export { OAP_EVENTS } from './events/oap.events';
export { OAP_RPC } from './rpc/oap.rpc';
export { AUDIT_EVENTS } from './events/audit.events';
export { AUDIT_RPC } from './rpc/audit.rpc';
export { DECISIONS_EVENTS } from './events/decisions.events';
export { RECORDS_EVENTS } from './events/records.events';
export { DIRECTORY_EVENTS } from './events/directory.events';
export { FLOWS_RPC } from './rpc/flows.rpc';
export { WEBHOOKS_EVENTS } from './events/webhooks.events';
export { OVERSIGHT_EVENTS } from './events/oversight.events';
export { OVERSIGHT_RPC } from './rpc/oversight.rpc';
export { RECEIPTS_RPC } from './rpc/receipts.rpc';
export { COLLECTION_CHANNELS, EVENT_CHANNELS, type CollectionChannel, type EventChannel } from './consent-vocabulary';
export {
  DATA_CATEGORIES,
  DEROGATION_ARTICLES,
  LAWFUL_BASES,
  TRANSFER_CASES,
  type DataCategory,
  type LawfulBasis,
  type TransferCase,
} from './transfer-vocabulary';
export { ESCALATION_TRIGGER_BOUNDS, parseApprovalProposal, type ApprovalProposal, type EscalationTrigger } from './approval-proposal';
export {
  PersonalDataSeal,
  SEALED_PERSONAL_DATA_FIELD,
  decodeSealedEvent,
  openSealedFields,
  encodeEvent,
  personalDataOf,
  sealedFieldsOf,
} from './personal-data';
