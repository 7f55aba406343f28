import { trace } from '@opentelemetry/api';
import pino, { type Logger } from 'pino';

export type { Logger } from 'pino';

/** Paths never written to logs: credentials travel in these. */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers["x-publishable-key"]',
  'req.headers.dpop',
  'req.headers.cookie',
  '*.api_token',
  '*.token',
  '*.secret',
  '*.signing_secret',
  '*.password',
  '*.private_key',
];

export interface LoggerOptions {
  service: string;
  region: string;
  level: string;
  /** Where JSON lines go; defaults to stdout. */
  destination?: pino.DestinationStream;
}

/** JSON logger carrying service, region and the active trace and span ids on every line. */
export function createLogger(options: LoggerOptions): Logger {
  return pino(
    {
      level: options.level,
      base: { service: options.service, region: options.region },
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
      mixin() {
        const span = trace.getActiveSpan()?.spanContext();
        return span ? { trace_id: span.traceId, span_id: span.spanId } : {};
      },
    },
    options.destination,
  );
}
