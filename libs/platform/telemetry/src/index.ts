export { createLogger, REDACTED_PATHS, type Logger, type LoggerOptions } from './logger';
export { REDACTED_FIELDS, serializeError } from './log-scrubbing';
export { PinoNestLogger } from './nest-logger';
export { Metrics, type GaugeReader } from './metrics';
export { BUSINESS_METRICS, HTTP_METRIC_NAMES, sampleNamesOf, type MetricDefinition } from './business-metrics';
export { startTracing } from './tracing';
export { loadTraceInstrumentations, sqlWithoutLiterals, urlAttributesWithoutQuery, type TraceInstrumentations } from './instrumentations';
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
