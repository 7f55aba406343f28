import { ROOT_CONTEXT, context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { contextWithRemoteParent, inBatchSpan, inSpan, spanContextOf, traceCarrierOf, traceIdOf } from './trace-context';

const TRACEPARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

describe('W3C trace context', () => {
  it('reads and writes traceparent and tracestate unchanged', () => {
    const carrier = { traceparent: TRACEPARENT, tracestate: 'vendor=opaque,other=1' };
    expect(traceCarrierOf(contextWithRemoteParent(carrier, ROOT_CONTEXT))).toEqual(carrier);
    expect(traceIdOf(carrier)).toBe('0af7651916cd43dd8448eb211c80319c');
  });

  it('ignores a malformed or all-zero traceparent rather than failing the message', () => {
    for (const traceparent of [
      '',
      'garbage',
      '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331',
      `00-${'0'.repeat(32)}-b7ad6b7169203331-01`,
    ]) {
      expect(spanContextOf({ traceparent })).toBeUndefined();
      expect(contextWithRemoteParent({ traceparent }, ROOT_CONTEXT)).toBe(ROOT_CONTEXT);
    }
    expect(traceIdOf(undefined)).toBe('');
  });

  it('is outside any trace when nothing is active', () => {
    expect(traceCarrierOf(ROOT_CONTEXT)).toBeUndefined();
  });

  describe('with a tracer provider', () => {
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });

    beforeAll(() => {
      context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
      trace.setGlobalTracerProvider(provider);
    });

    afterAll(() => {
      trace.disable();
      context.disable();
    });

    afterEach(() => exporter.reset());

    it('runs work in a child span, marking it failed when the work throws', async () => {
      const parent = contextWithRemoteParent({ traceparent: TRACEPARENT }, ROOT_CONTEXT);
      const inner = await inSpan('ok', { parent }, async () => traceCarrierOf());
      await expect(inSpan('fails', { parent }, async () => Promise.reject(new TypeError('boom')))).rejects.toThrow('boom');
      const [ok, failed] = exporter.getFinishedSpans();
      expect(inner?.traceparent).toBe(`00-0af7651916cd43dd8448eb211c80319c-${ok!.spanContext().spanId}-01`);
      expect(ok!.parentSpanContext?.spanId).toBe('b7ad6b7169203331');
      expect(failed!.status).toMatchObject({ code: 2, message: 'boom' });
      expect(failed!.attributes['error.type']).toBe('TypeError');
    });

    it('puts a group commit under the first request and links every request', async () => {
      const second = '00-1af7651916cd43dd8448eb211c80319c-c7ad6b7169203331-01';
      await inBatchSpan('commit', [{ traceparent: TRACEPARENT }, undefined, { traceparent: second }], { size: 3 }, async () => undefined);
      const [commit] = exporter.getFinishedSpans();
      expect(commit!.spanContext().traceId).toBe('0af7651916cd43dd8448eb211c80319c');
      expect(commit!.links.map((l) => l.context.spanId)).toEqual(['b7ad6b7169203331', 'c7ad6b7169203331']);
    });

    it('records no batch span when no request was traced', async () => {
      await expect(inBatchSpan('commit', [undefined, undefined], {}, async () => 7)).resolves.toBe(7);
      expect(exporter.getFinishedSpans()).toEqual([]);
    });
  });
});
