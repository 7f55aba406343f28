import { TRACEPARENT_HEADER, TRACESTATE_HEADER, traceCarrierOf, type TraceCarrier } from '@svc/telemetry';
import { headers as natsHeaders, type MsgHdrs } from 'nats';

/** Sets `traceparent`/`tracestate` from the carrier, or from the active span; nothing outside a trace. */
export function injectTrace(headers: MsgHdrs, carrier: TraceCarrier | undefined = traceCarrierOf()): void {
  if (!carrier) return;
  headers.set(TRACEPARENT_HEADER, carrier.traceparent);
  if (carrier.tracestate) headers.set(TRACESTATE_HEADER, carrier.tracestate);
}

/** Fresh message headers carrying the active trace (empty outside a trace), for a raw request or publish. */
export function traceHeaders(): MsgHdrs {
  const h = natsHeaders();
  injectTrace(h);
  return h;
}

/** The trace context a message carries in its headers, if any. */
export function traceOfHeaders(headers: MsgHdrs | undefined): TraceCarrier | undefined {
  const traceparent = headers?.get(TRACEPARENT_HEADER);
  if (!traceparent) return undefined;
  const tracestate = headers?.get(TRACESTATE_HEADER);
  return tracestate ? { traceparent, tracestate } : { traceparent };
}

/** Attributes of a span about one bus message (OpenTelemetry messaging conventions). */
export function messagingAttributes(subject: string, messageId?: string): Record<string, string> {
  return messageId
    ? { 'messaging.system': 'nats', 'messaging.destination.name': subject, 'messaging.message.id': messageId }
    : { 'messaging.system': 'nats', 'messaging.destination.name': subject };
}
