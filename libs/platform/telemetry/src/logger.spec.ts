import { Writable } from 'node:stream';
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import { createLogger } from './logger';

function capture(): { lines: Array<Record<string, unknown>>; stream: Writable } {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  return { lines, stream };
}

describe('JSON logger', () => {
  it('writes service, region and level on every line', () => {
    const { lines, stream } = capture();
    createLogger({ service: 'gateway', region: 'eu', level: 'info', destination: stream }).info('hello');
    expect(lines[0]).toMatchObject({ service: 'gateway', region: 'eu', level: 30, msg: 'hello' });
  });

  it('carries the active trace and span ids', () => {
    const manager = new AsyncLocalStorageContextManager().enable();
    context.setGlobalContextManager(manager);
    const tracer = new BasicTracerProvider().getTracer('test');
    const { lines, stream } = capture();
    const logger = createLogger({ service: 's', region: 'us', level: 'info', destination: stream });
    const span = tracer.startSpan('request');
    context.with(trace.setSpan(context.active(), span), () => logger.info('inside'));
    span.end();
    expect(lines[0]).toMatchObject({ trace_id: span.spanContext().traceId, span_id: span.spanContext().spanId });
    context.disable();
  });

  it('never writes credentials', () => {
    const { lines, stream } = capture();
    createLogger({ service: 's', region: 'us', level: 'info', destination: stream }).info(
      { req: { headers: { authorization: 'Bearer secret-token', 'x-publishable-key': 'pk_test_x' } }, body: { api_token: 'tok', secret: 'whsec' } },
      'request',
    );
    const text = JSON.stringify(lines[0]);
    expect(text).not.toContain('secret-token');
    expect(text).not.toContain('pk_test_x');
    expect(text).not.toContain('"tok"');
    expect(text).not.toContain('whsec');
  });
});
