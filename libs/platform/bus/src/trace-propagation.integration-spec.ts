import { Controller } from '@nestjs/common';
import { SpanKind, context, trace, type Span } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { deleteTestStreams, TEST_NATS_URL, uniqueBusPrefix, waitFor } from '@svc/testing';
import { BusConnection } from './bus-connection';
import { EventPublisher } from './event-publisher';
import { EventBatchConsumer, EventConsumer, serveEvents, type DeliveredEvent } from './nest-events';
import { RpcHandler, rpcClientOf, serveRpc, type RpcReplyInit, type RpcRequest, type RpcService } from './nest-rpc';
import { ensureRegionStream } from './streams';

const APPLICATION = {
  found: true,
  name: 'n',
  environment: 'development',
  mode: 'conductor',
  capabilitiesPublished: false,
  allowedOrigins: [],
};
const handledIn: string[] = [];

@Controller()
class ApplicationHandlers {
  @RpcHandler('gateway.get_application')
  async getApplication(request: RpcRequest<'gateway.get_application'>): Promise<RpcReplyInit<'gateway.get_application'>> {
    handledIn.push(trace.getActiveSpan()?.spanContext().traceId ?? '');
    return { ...APPLICATION, applicationId: request.applicationId };
  }
}

const seen: Array<{ event: DeliveredEvent; activeTraceId: string | undefined }> = [];
const batchEvents: DeliveredEvent[] = [];

@Controller()
class TracedConsumers {
  @EventConsumer({ durable: 'trace-single', types: '>' })
  async single(event: DeliveredEvent): Promise<void> {
    seen.push({ event, activeTraceId: trace.getActiveSpan()?.spanContext().traceId });
  }

  @EventBatchConsumer({ durable: 'trace-batch', types: '>' })
  async batch(events: readonly DeliveredEvent[]): Promise<void> {
    batchEvents.push(...events);
  }
}

/**
 * W3C trace context crosses the bus: a request or an event carries `traceparent` in its NATS
 * headers, and the handling side's span is a child of the calling side's (real NATS).
 */
describe('trace context on the bus', () => {
  const prefix = uniqueBusPrefix();
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const tracer = provider.getTracer('test');
  let bus: BusConnection;
  let caller: BusConnection;
  let service: RpcService;

  /** Runs `work` inside a span of the test, as an HTTP request's span would be; returns that span. */
  async function inRequest(work: () => Promise<unknown>): Promise<Span> {
    const span = tracer.startSpan('request', { kind: SpanKind.SERVER });
    await context.with(trace.setSpan(context.active(), span), work);
    span.end();
    return span;
  }

  const finished = (name: string): ReadableSpan[] => exporter.getFinishedSpans().filter((s) => s.name === name);

  beforeAll(async () => {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    trace.setGlobalTracerProvider(provider);
    bus = await BusConnection.connect({ url: TEST_NATS_URL, prefix, region: 'us', name: 'trace-test' });
    caller = await BusConnection.connect({ url: TEST_NATS_URL, prefix, region: 'us', name: 'trace-test-caller' });
    await ensureRegionStream(bus.jsm, prefix, 'us');
    service = await serveRpc(bus, [ApplicationHandlers]);
    await bus.nc.flush();
  });

  afterEach(() => exporter.reset());

  afterAll(async () => {
    await service?.close();
    await bus?.close();
    await caller?.close();
    await deleteTestStreams(prefix);
    await provider.shutdown();
    trace.disable();
    context.disable();
  });

  it("carries a request over NATS: the handler runs in a server span under the caller's client span", async () => {
    const request = await inRequest(() => rpcClientOf(caller).call('gateway.get_application', { applicationId: 'tp_us_remote' }));
    const [call] = finished('gateway.get_application call');
    const handled = await waitFor(() => finished('gateway.get_application handle')[0]);
    expect(call!.kind).toBe(SpanKind.CLIENT);
    expect(call!.parentSpanContext?.spanId).toBe(request.spanContext().spanId);
    expect(handled.kind).toBe(SpanKind.SERVER);
    expect(handled.parentSpanContext).toMatchObject({ spanId: call!.spanContext().spanId, isRemote: true });
    expect(handled.spanContext().traceId).toBe(request.spanContext().traceId);
    expect(handledIn).toContain(request.spanContext().traceId);
  });

  it('keeps the trace on the in-process path', async () => {
    const request = await inRequest(() => service.client.call('gateway.get_application', { applicationId: 'tp_us_local' }));
    const [call] = finished('gateway.get_application call');
    const [handled] = finished('gateway.get_application handle');
    expect(call!.attributes['rpc.local']).toBe(true);
    expect(handled!.parentSpanContext?.spanId).toBe(call!.spanContext().spanId);
    expect(handled!.spanContext().traceId).toBe(request.spanContext().traceId);
  });

  it("carries an event to every consumer: each one's span is a child of the publish span", async () => {
    const consumers = await serveEvents(bus, [TracedConsumers]);
    try {
      const request = await inRequest(() =>
        new EventPublisher(bus).publish({
          id: 'evt-traced-1',
          subject: `${prefix}.us.evt.application.created`,
          eventType: 'application.created',
          data: new Uint8Array([1]),
        }),
      );
      const traceId = request.spanContext().traceId;
      const processed = await waitFor(() => {
        const spans = finished('application.created process');
        return spans.length === 2 ? spans : undefined;
      });
      const [published] = finished('application.created publish');
      expect(published!.kind).toBe(SpanKind.PRODUCER);
      expect(published!.parentSpanContext?.spanId).toBe(request.spanContext().spanId);
      for (const span of processed) {
        expect(span.kind).toBe(SpanKind.CONSUMER);
        expect(span.spanContext().traceId).toBe(traceId);
        expect(span.parentSpanContext?.spanId).toBe(published!.spanContext().spanId);
      }
      expect(processed.map((s) => s.attributes['messaging.consumer.group.name']).sort()).toEqual(['trace-batch', 'trace-single']);
      // The single consumer's handler runs in its span; a batch handler gets each event's span to continue.
      expect(seen[0]!.activeTraceId).toBe(traceId);
      const batchSpan = processed.find((s) => s.attributes['messaging.consumer.group.name'] === 'trace-batch')!;
      expect(batchEvents[0]!.trace?.traceparent).toBe(`00-${traceId}-${batchSpan.spanContext().spanId}-01`);
    } finally {
      await consumers.close();
    }
  });

  it('sends no trace headers and records nothing when no tracer provider is registered', async () => {
    trace.disable();
    const sub = bus.nc.subscribe(`${prefix}.us.evt.application.updated`, { max: 1 });
    const got = (async () => {
      for await (const msg of sub) return msg.headers;
      return undefined;
    })();
    await new EventPublisher(bus).publish({
      id: 'evt-untraced-1',
      subject: `${prefix}.us.evt.application.updated`,
      eventType: 'application.updated',
      data: new Uint8Array([1]),
    });
    const headers = await got;
    expect(headers?.get('Svc-Event-Type')).toBe('application.updated');
    expect(headers?.has('traceparent')).toBe(false);
    expect(exporter.getFinishedSpans()).toEqual([]);
  });
});
