import {
  ROOT_CONTEXT,
  context,
  createTraceState,
  isSpanContextValid,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Link,
  type Span,
  type SpanContext,
} from '@opentelemetry/api';

/** W3C Trace Context header names, as carried in NATS message headers and outbox rows. */
export const TRACEPARENT_HEADER = 'traceparent';
export const TRACESTATE_HEADER = 'tracestate';

/** A serialised span context: the W3C `traceparent` and, when present, `tracestate`. */
export interface TraceCarrier {
  traceparent: string;
  tracestate?: string;
}

const TRACER_NAME = 'svc';
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/**
 * The W3C trace context of the active span (or of `ctx`); undefined outside any trace, which is
 * always the case when no tracer provider is registered and nothing upstream sent a traceparent.
 */
export function traceCarrierOf(ctx: Context = context.active()): TraceCarrier | undefined {
  const spanContext = trace.getSpanContext(ctx);
  if (!spanContext || !isSpanContextValid(spanContext)) return undefined;
  const flags = (spanContext.traceFlags & 0xff).toString(16).padStart(2, '0');
  const traceparent = `00-${spanContext.traceId}-${spanContext.spanId}-${flags}`;
  const tracestate = spanContext.traceState?.serialize();
  return tracestate ? { traceparent, tracestate } : { traceparent };
}

/** The trace id of the active span, or '' outside any trace (the events' `trace_id`). */
export function activeTraceId(): string {
  const spanContext = trace.getSpanContext(context.active());
  return spanContext && isSpanContextValid(spanContext) ? spanContext.traceId : '';
}

/** The trace id a carrier names, or '' without one (the events' `meta.trace_id`). */
export function traceIdOf(carrier: TraceCarrier | undefined): string {
  return spanContextOf(carrier)?.traceId ?? '';
}

/** The remote span context a `traceparent` (and `tracestate`) names; undefined when malformed. */
export function spanContextOf(carrier: Partial<TraceCarrier> | undefined): SpanContext | undefined {
  const match = carrier?.traceparent ? TRACEPARENT.exec(carrier.traceparent.trim().toLowerCase()) : null;
  if (!match) return undefined;
  const spanContext: SpanContext = {
    traceId: match[1]!,
    spanId: match[2]!,
    traceFlags: parseInt(match[3]!, 16),
    isRemote: true,
    ...(carrier?.tracestate ? { traceState: createTraceState(carrier.tracestate) } : {}),
  };
  return isSpanContextValid(spanContext) ? spanContext : undefined;
}

/** `base` (the active context by default) with the carrier's span as parent; `base` unchanged without one. */
export function contextWithRemoteParent(carrier: Partial<TraceCarrier> | undefined, base: Context = context.active()): Context {
  const spanContext = spanContextOf(carrier);
  return spanContext ? trace.setSpanContext(base, spanContext) : base;
}

export interface SpanRunOptions {
  kind?: SpanKind;
  attributes?: Attributes;
  /** Parent context; the active one by default. */
  parent?: Context;
  /** Other traces the work serves (e.g. the requests of a group commit). */
  links?: Link[];
}

/**
 * Runs `work` inside a new active span, recording a thrown error on it and ending it when the
 * work settles. With no tracer provider registered this is the API's no-op span: no allocation
 * beyond a context entry, nothing recorded.
 */
export async function inSpan<T>(name: string, options: SpanRunOptions, work: (span: Span) => Promise<T>): Promise<T> {
  const tracer = trace.getTracer(TRACER_NAME);
  const parent = options.parent ?? context.active();
  const span = tracer.startSpan(
    name,
    { kind: options.kind ?? SpanKind.INTERNAL, attributes: options.attributes, links: options.links },
    parent,
  );
  try {
    return await context.with(trace.setSpan(parent, span), () => work(span));
  } catch (error) {
    recordFailure(span, error);
    throw error;
  } finally {
    span.end();
  }
}

/** Starts a span that the caller ends (for work whose end is decided elsewhere, e.g. an ack). */
export function startSpan(name: string, options: SpanRunOptions): Span {
  return trace
    .getTracer(TRACER_NAME)
    .startSpan(
      name,
      { kind: options.kind ?? SpanKind.INTERNAL, attributes: options.attributes, links: options.links },
      options.parent ?? context.active(),
    );
}

/**
 * Runs a transaction serving several requests at once (a group commit) in a span: a child of the
 * first request's trace, linked to every request's, so each request's trace leads to the commit
 * that wrote it. Nothing is recorded when no request was traced.
 */
export function inBatchSpan<T>(
  name: string,
  traces: ReadonlyArray<TraceCarrier | undefined>,
  attributes: Attributes,
  work: () => Promise<T>,
): Promise<T> {
  const contexts = traces.map(spanContextOf).filter((c): c is SpanContext => c !== undefined);
  if (contexts.length === 0) return work();
  return inSpan(
    name,
    {
      kind: SpanKind.INTERNAL,
      parent: trace.setSpanContext(ROOT_CONTEXT, contexts[0]!),
      links: contexts.map((c) => ({ context: c })),
      attributes,
    },
    work,
  );
}

/** Marks a span failed with the error's class and message (never its details or causes). */
export function recordFailure(span: Span, error: unknown): void {
  if (!span.isRecording()) return;
  span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
  span.setAttribute('error.type', error instanceof Error ? error.name : typeof error);
}

export { SpanKind };
