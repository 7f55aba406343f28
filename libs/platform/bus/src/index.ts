export { ApplicationFactsReader, type StampedApplicationFacts } from './application-facts';
export { BusConnection, busCredentialsFrom, type BusCredentials, type BusOptions } from './bus-connection';
export { DUPLICATE_WINDOW_MS, NANOS_PER_MS, deleteStreamsWithPrefix, ensureImportedStream, ensureRegionStream } from './streams';
export { EventPublisher, type OutgoingEvent } from './event-publisher';
export { injectTrace, traceHeaders, traceOfHeaders } from './trace-headers';
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
export {
  EventBatchConsumer,
  EventConsumer,
  EventFanout,
  eachInOrder,
  JetStreamContext,
  JetStreamServer,
  redeliveryDelayMs,
  serveEvents,
  type BatchOutcomes,
  type ConsumerLogger,
  type DeadLetterObserver,
  type DeliveredEvent,
  type EventBatchDelivery,
  type EventDelivery,
  type EventService,
  type EventSubscription,
  type EventSubscriptions,
  type EventTypeFilter,
  type ProviderLookup,
} from './nest-events';
// A consumer method that needs its JetStreamContext takes `@Payload() event, @Ctx() context`.
export { Ctx, Payload } from '@nestjs/microservices';
