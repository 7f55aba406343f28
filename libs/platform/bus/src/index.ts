export { BusConnection, busCredentialsFrom, type BusCredentials, type BusOptions } from './bus-connection';
export { DUPLICATE_WINDOW_MS, NANOS_PER_MS, deleteStreamsWithPrefix, ensureRegionStream } from './streams';
export { EventPublisher, type OutgoingEvent } from './event-publisher';
export { injectTrace, traceHeaders, traceOfHeaders } from './trace-headers';
export {
  DurableConsumer,
  type ConsumerLogger,
  type DeliveredEvent,
  type DurableConsumerOptions,
  type EventHandler,
} from './durable-consumer';
export {
  BusRpcClient,
  BusRpcServer,
  RPC_TIMEOUT_MS,
  RpcClient,
  RpcErrorPassthrough,
  RpcHandler,
  rpcClientOf,
  serveRpc,
  type RpcService,
  type RpcReply,
  type RpcReplyInit,
  type RpcRequest,
  type RpcRequestInit,
} from './nest-rpc';
export { BatchConsumer, type BatchConsumerOptions, type BatchErrorListener, type BatchHandler, type BatchOutcomes } from './batch-consumer';
export {
  EventConsumer,
  JetStreamContext,
  JetStreamServer,
  serveEvents,
  type EventDelivery,
  type EventService,
  type EventSubscription,
} from './nest-events';
