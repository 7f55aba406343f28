// Generated messages (buf generate; never edited by hand), one line per proto file.
export * from './gen/svc/events/v1/meta_pb';
export * from './gen/svc/events/v1/connect_pb';
export * from './gen/svc/events/v1/keys_pb';
export * from './gen/svc/rpc/v1/errors_pb';
export * from './gen/svc/rpc/v1/credentials_pb';
export * from './gen/svc/rpc/v1/applications_pb';
// Subject maps.
export {
  EVENTS,
  RPC_METHODS,
  eventSubject,
  regionEventWildcard,
  regionStreamName,
  rpcSubject,
  type EventType,
  type RpcMethod,
} from './subjects';
export { decodeEvent, isEventType } from './decode-event';
