import { trace } from '@opentelemetry/api';
import pino, { type Logger } from 'pino';
import { CENSOR, scrubLogObject, scrubText, serializeError } from './log-scrubbing';

export type { Logger } from 'pino';

/**
 * Credential headers, censored by pino's own redaction too. Every other sensitive field name
 * (REDACTED_FIELDS: tokens, codes, secrets, people's data, bodies, bind values) is censored at any
 * depth by the log formatter, one walk per line instead of a wildcard path per field.
 */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers["x-publishable-key"]',
  'req.headers["x-api-key"]',
  'req.headers.dpop',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
];

export interface LoggerOptions {
  service: string;
  region: string;
  level: string;
  /** Where JSON lines go; defaults to stdout. */
  destination?: pino.DestinationStream;
}

/**
 * JSON logger carrying service, region and the active trace and span ids on every line. Errors lose
 * the fields carrying SQL bind values; REDACTED_PATHS and REDACTED_FIELDS are censored; emails and
 * values Postgres quotes back are removed from every string, the message included.
 */
export function createLogger(options: LoggerOptions): Logger {
  return pino(
    {
      level: options.level,
      base: { service: options.service, region: options.region },
      redact: { paths: REDACTED_PATHS, censor: CENSOR },
      serializers: { err: serializeError, error: serializeError },
      formatters: { log: (object) => scrubLogObject(object) as Record<string, unknown> },
      hooks: {
        logMethod(args, method) {
          const scrubbed = args.map((arg: unknown) => (typeof arg === 'string' ? scrubText(arg) : arg));
          return method.apply(this, scrubbed as Parameters<typeof method>);
        },
      },
      timestamp: pino.stdTimeFunctions.isoTime,
      mixin() {
        const span = trace.getActiveSpan()?.spanContext();
        return span ? { trace_id: span.traceId, span_id: span.spanId } : {};
      },
    },
    options.destination,
  );
}
