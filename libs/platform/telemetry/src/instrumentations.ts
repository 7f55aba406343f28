import type { Attributes } from '@opentelemetry/api';
import type { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import type { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import type { UndiciInstrumentation, UndiciRequest } from '@opentelemetry/instrumentation-undici';

/**
 * The span attributes of an outbound call that name its URL, without the query string: customer
 * endpoints may carry tokens there. `undefined` removes the instrumentation's `url.query`.
 */
export function urlAttributesWithoutQuery(request: Pick<UndiciRequest, 'origin' | 'path'>): Attributes {
  let url: URL;
  try {
    url = new URL(request.path, request.origin);
  } catch {
    return { 'url.full': undefined, 'url.query': undefined };
  }
  url.search = '';
  url.hash = '';
  url.username = '';
  url.password = '';
  return { 'url.full': url.toString(), 'url.query': undefined };
}

/**
 * SQL text with its literals replaced by `?`, as the semantic conventions ask of `db.query.text`:
 * a batched statement inlines its values (identifiers, emails, sealed payloads) as string
 * literals, which must not become span attributes any more than bind values. Strings (with `E`
 * escapes and doubled quotes), dollar-quoted bodies and numbers outside identifiers become `?`;
 * `$1` placeholders, keywords and identifiers stay.
 */
export function sqlWithoutLiterals(text: string): string {
  return text
    .replace(/\$([A-Za-z_][A-Za-z0-9_]*)?\$[\s\S]*?\$\1\$/g, '?')
    .replace(/\b[Ee]'(?:[^'\\]|\\[\s\S]|'')*'|'(?:[^']|'')*'/g, '?')
    .replace(/(?<![\w$."])-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?\b/g, '?');
}

/** The instrumentations of a deployment's processes, configured once. */
export interface TraceInstrumentations {
  http: HttpInstrumentation;
  /** SQL text only: neither bind values (`enhancedDatabaseReporting: false`) nor inlined literals become attributes. */
  pg: PgInstrumentation;
  /** Outbound calls (webhook deliveries, customer URLs), their URLs without query strings. */
  undici: UndiciInstrumentation;
}

/**
 * The instrumentations, their modules loaded on first use: a process that exports no traces (no
 * OTLP endpoint) never loads them, nor the SDK, which keeps several hundred modules out of every
 * start.
 */
export async function loadTraceInstrumentations(options: { enabled?: boolean } = {}): Promise<TraceInstrumentations> {
  const [{ HttpInstrumentation }, { PgInstrumentation }, { UndiciInstrumentation }] = await Promise.all([
    import('@opentelemetry/instrumentation-http'),
    import('@opentelemetry/instrumentation-pg'),
    import('@opentelemetry/instrumentation-undici'),
  ]);
  const enabled = options.enabled ?? true;
  return {
    http: new HttpInstrumentation({ enabled }),
    pg: new PgInstrumentation({
      enabled,
      enhancedDatabaseReporting: false,
      requireParentSpan: true,
      addSqlCommenterCommentToQueries: false,
      requestHook: (span, { query }) => span.setAttribute('db.query.text', sqlWithoutLiterals(query.text)),
    }),
    undici: new UndiciInstrumentation({ enabled, requireParentforSpans: true, startSpanHook: urlAttributesWithoutQuery }),
  };
}
