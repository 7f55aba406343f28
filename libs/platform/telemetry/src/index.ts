export { createLogger, REDACTED_PATHS, type Logger, type LoggerOptions } from './logger';
export { PinoNestLogger } from './nest-logger';
export { Metrics } from './metrics';
export { startTracing } from './tracing';
export { Readiness, type CheckResult, type ReadinessCheck } from './readiness';
export {
  TRACEPARENT_HEADER,
  TRACESTATE_HEADER,
  SpanKind,
  activeTraceId,
  contextWithRemoteParent,
  inBatchSpan,
  inSpan,
  recordFailure,
  spanContextOf,
  startSpan,
  traceCarrierOf,
  traceIdOf,
  type SpanRunOptions,
  type TraceCarrier,
} from './trace-context';
