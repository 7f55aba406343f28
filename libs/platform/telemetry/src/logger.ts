import { trace } from '@opentelemetry/api';
import pino, { type Logger } from 'pino';
import { scrubLogObject, scrubText, serializeError } from './log-scrubbing';

export type { Logger } from 'pino';

/** Credentials, which travel in these headers and fields, wherever they appear in a log object. */
const CREDENTIAL_FIELDS = [
  'authorization',
  'cookie',
  'dpop',
  'api_token',
  'apiToken',
  'api_key',
  'token',
  'session_token',
  'sessionToken',
  'access_token',
  'refresh_token',
  'id_token',
  'secret',
  'signing_secret',
  'webhook_secret',
  'client_secret',
  'password',
  'private_key',
  'authorization_code',
  'code_verifier',
  'device_code',
  'user_code',
];
/** People's contact data and the organisation's identifiers of them. */
const PERSONAL_FIELDS = ['email', 'subject_email', 'subjectEmail', 'subject_external_id', 'subjectExternalId', 'external_id', 'user_identifier', 'principal_id'];

/** Paths never written to logs: credentials, people's data, request bodies and SQL bind values. */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers["x-publishable-key"]',
  'req.headers["x-api-key"]',
  'req.headers.dpop',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
  'req.body',
  'body',
  '*.body',
  'parameters',
  '*.parameters',
  ...[...CREDENTIAL_FIELDS, ...PERSONAL_FIELDS].flatMap((field) => [field, `*.${field}`]),
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
 * the fields carrying SQL bind values, REDACTED_PATHS are censored, and emails and values Postgres
 * quotes back are removed from every string, the message included.
 */
export function createLogger(options: LoggerOptions): Logger {
  return pino(
    {
      level: options.level,
      base: { service: options.service, region: options.region },
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
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
